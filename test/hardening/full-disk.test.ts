import fs from 'node:fs';
import path from 'node:path';
import { configToml, json, seedOwner, send, type RawResponse } from '../auth/auth-helpers';
import { bootService, quietDemoClock, type BootedService, type BootOptions } from '../helpers/service';
import { mountSmallFileSystem, type SmallFileSystem } from '../helpers/small-fs';

/**
 * Issue 16, item 4, on a real full disk (a small tmpfs): POST /auth/tokens
 * answered 201 with a token that was never stored, POST /auth/setup left
 * `setup_complete: true` with no account, and config, raw-config, run and
 * photo writes answered a generic 500 and left `*.tmp-*` files behind. Every
 * write now checks that it committed, a full disk answers 507
 * `insufficient_storage`, and temp files are removed on failure and at boot.
 */

let disk: SmallFileSystem | null = null;
let booted: BootedService | null = null;

async function bootOnSmallDisk(options: BootOptions = {}): Promise<BootedService> {
  disk = mountSmallFileSystem();
  booted = await bootService({ ...options, dataDir: disk.dir });
  return booted;
}

afterEach(async () => {
  await booted?.service.stop();
  booted = null;
  disk?.unmount();
  disk = null;
});

function expectFull(res: RawResponse): void {
  expect(res.status).toBe(507);
  expect(json(res)?.code).toBe('insufficient_storage');
}

/** Every `*.tmp-*` file under the data directory. */
function tempFiles(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[]).filter((name) => name.includes('.tmp-'));
}

function full(): SmallFileSystem {
  if (!disk) throw new Error('no small disk');
  return disk;
}

describe('auth writes on a full disk', () => {
  it('POST /auth/tokens answers 507 and hands out no token that was never stored', async () => {
    const service = await bootOnSmallDisk({ configToml: configToml({ mode: 'required' }) });
    const owner = await seedOwner(service.service);
    const cookie = { Cookie: `service_session=${owner.session}` };
    const before = service.service.store?.tokens.list().length;
    full().fill();
    const res = await send(service.port, {
      method: 'POST',
      path: '/api/v1/auth/tokens',
      headers: cookie,
      body: { name: 'ha' },
    });
    expectFull(res);
    expect(res.text).not.toMatch(/rct_/);
    full().free();
    expect(service.service.store?.tokens.list()).toHaveLength(before ?? 0);
    const retry = await send(service.port, {
      method: 'POST',
      path: '/api/v1/auth/tokens',
      headers: cookie,
      body: { name: 'ha' },
    });
    expect(retry.status).toBe(201);
  });

  it('POST /auth/setup answers 507 and leaves no owner and the mode as it was', async () => {
    const service = await bootOnSmallDisk({ configToml: configToml({ mode: 'disabled' }) });
    const configBefore = fs.readFileSync(service.configPath, 'utf8');
    full().fill();
    const body = { username: 'owner', password: 'Sprinkle-the-lawn-77' };
    const res = await send(service.port, { method: 'POST', path: '/api/v1/auth/setup', body });
    expectFull(res);
    expect(res.headers['set-cookie']).toBeUndefined();
    const status = json(await send(service.port, { path: '/api/v1/auth/status' }));
    expect(status).toMatchObject({ mode: 'disabled', setup_complete: false });
    full().free();
    expect(service.service.store?.accounts.count()).toBe(0);
    expect(fs.readFileSync(service.configPath, 'utf8')).toBe(configBefore);
    expect(tempFiles(service.dataDir)).toEqual([]);
    expect((await send(service.port, { method: 'POST', path: '/api/v1/auth/setup', body })).status).toBe(201);
  });
});

describe('file and ledger writes on a full disk', () => {
  it('config writes answer 507, change nothing and leave no temp file', async () => {
    const service = await bootOnSmallDisk({ configToml: configToml({ mode: 'disabled' }) });
    const doc = json(await send(service.port, { path: '/api/v1/config' })) as Record<string, unknown>;
    expect((await send(service.port, { method: 'PUT', path: '/api/v1/config', body: doc })).status).toBe(200);
    const ts = (
      json(await send(service.port, { path: '/api/v1/config/snapshots' })) as { snapshots: { ts: string }[] }
    ).snapshots[0]?.ts;
    const fileBefore = fs.readFileSync(service.configPath, 'utf8');
    full().fill();

    expectFull(
      await send(service.port, { method: 'PUT', path: '/api/v1/config', body: { ...doc, engine: {} } }),
    );
    const raw = `${fileBefore}\n# edited\n`;
    expectFull(
      await send(service.port, {
        method: 'PUT',
        path: '/api/v1/config/raw',
        headers: { 'content-type': 'text/plain', 'content-length': String(Buffer.byteLength(raw)) },
        rawBody: raw,
      }),
    );
    expectFull(await send(service.port, { method: 'POST', path: '/api/v1/config/rollback', body: { ts } }));
    expect(tempFiles(service.dataDir)).toEqual([]);
    expect(fs.readFileSync(service.configPath, 'utf8')).toBe(fileBefore);

    full().free();
    expect((await send(service.port, { method: 'PUT', path: '/api/v1/config', body: doc })).status).toBe(200);
  });

  it('a manual run answers 507 and no valve is left running', async () => {
    const service = await bootOnSmallDisk({
      env: { DEMO: '1' },
      serviceOptions: { clock: quietDemoClock() },
    });
    full().fill();
    const run = await send(service.port, {
      method: 'POST',
      path: '/api/v1/irrigation/action',
      body: { kind: 'run', zone: 'front_lawn', seconds: 60 },
    });
    expectFull(run);
    full().free();
    const snapshot = json(await send(service.port, { path: '/api/v1/irrigation/snapshot' })) as {
      zones: { slug: string; running: boolean; ledger_running: boolean }[];
    };
    expect(snapshot.zones.length).toBeGreaterThan(0);
    expect(snapshot.zones.filter((z) => z.running || z.ledger_running)).toEqual([]);
    expect(service.service.store?.runs.listWindow(0, Number.MAX_SAFE_INTEGER)).toEqual([]);
  });

  it('a photo upload answers 507 and leaves no temp file; the next boot sweeps any a crash left', async () => {
    const service = await bootOnSmallDisk({ configToml: configToml({ mode: 'disabled' }) });
    const png = Buffer.from(
      'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
      'base64',
    );
    const boundary = 'b0undary';
    const body = Buffer.concat([
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.png"\r\nContent-Type: image/png\r\n\r\n`,
      ),
      png,
      Buffer.alloc(64 * 1024, 1),
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    full().fill();
    const res = await send(service.port, {
      method: 'POST',
      path: '/api/v1/zones/photo',
      headers: {
        'content-type': `multipart/form-data; boundary=${boundary}`,
        'content-length': String(body.length),
      },
      rawBody: body,
    });
    expectFull(res);
    expect(tempFiles(service.dataDir)).toEqual([]);
    full().free();

    // What a crash mid-write leaves behind is gone after the next boot.
    await service.service.stop();
    booted = null;
    const photos = path.join(service.dataDir, 'photos');
    fs.mkdirSync(photos, { recursive: true });
    fs.writeFileSync(path.join(photos, `${'a'.repeat(32)}.png.tmp-1-2`), 'torn');
    fs.writeFileSync(path.join(service.dataDir, 'forecast-cache.json.tmp-1-2'), 'torn');
    booted = await bootService({ dataDir: service.dataDir });
    expect(tempFiles(service.dataDir)).toEqual([]);
  });
});
