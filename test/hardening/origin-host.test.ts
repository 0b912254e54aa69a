import fs from 'node:fs';
import path from 'node:path';
import { answersTo, hostNameOf } from '../../server/src/auth/request-origin';
import { configToml, json, send, type RawResponse } from '../auth/auth-helpers';
import { serviceTracker, type BootedService } from '../helpers/service';

/**
 * Issue 16, item 9: with auth disabled a cross-site `text/plain` rollback and
 * a cross-site photo upload were carried out, and `Host: evil.example` (DNS
 * rebinding) was accepted. State-changing requests from a foreign Origin, or
 * from a browser to a host this install does not answer to, are refused in
 * both modes; API clients (no Origin) and HA ingress (a trusted proxy) pass.
 */

const services = serviceTracker();
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

async function bootWithSnapshot(auth = configToml({ mode: 'disabled' })): Promise<{
  booted: BootedService;
  ts: string;
}> {
  const booted = await services.boot({ configToml: auth });
  const doc = json(await send(booted.port, { path: '/api/v1/config' })) as Record<string, unknown>;
  const saved = await send(booted.port, { method: 'PUT', path: '/api/v1/config', body: doc });
  expect(saved.status).toBe(200);
  const list = json(await send(booted.port, { path: '/api/v1/config/snapshots' })) as {
    snapshots: { ts: string }[];
  };
  const ts = list.snapshots[0]?.ts;
  if (!ts) throw new Error('no snapshot');
  return { booted, ts };
}

function rollback(booted: BootedService, ts: string, headers: Record<string, string>): Promise<RawResponse> {
  return send(booted.port, {
    method: 'POST',
    path: `/api/v1/config/rollback?to=${ts}`,
    headers: { 'content-type': 'text/plain', 'content-length': '1', ...headers },
    rawBody: 'x',
  });
}

function multipartPhoto(boundary = 'raincheck-boundary'): { body: Buffer; type: string } {
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="lawn.png"\r\nContent-Type: image/png\r\n\r\n`;
  return {
    body: Buffer.concat([Buffer.from(head), PNG, Buffer.from(`\r\n--${boundary}--\r\n`)]),
    type: `multipart/form-data; boundary=${boundary}`,
  };
}

function photosIn(booted: BootedService): string[] {
  const dir = path.join(booted.dataDir, 'photos');
  return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
}

describe('host names this install answers to', () => {
  it('takes IP literals, localhost and configured names (wildcards for subdomains)', () => {
    const allowed = ['raincheck.example.net', '*.lan.example'];
    for (const host of ['192.168.1.5:8099', '[::1]:8099', '[fd00::5]', 'localhost:8099', 'app.localhost']) {
      expect([host, answersTo(host, [])]).toEqual([host, true]);
    }
    for (const host of ['Raincheck.Example.NET:8099', 'raincheck.example.net.', 'pi.lan.example']) {
      expect([host, answersTo(host, allowed)]).toEqual([host, true]);
    }
    for (const host of ['evil.example', 'lan.example', 'raincheck.example.net.evil', 'localhost.evil']) {
      expect([host, answersTo(host, allowed)]).toEqual([host, false]);
    }
    expect(hostNameOf('[::1]:80')).toBe('::1');
  });
});

describe.each(['disabled', 'required'] as const)('auth %s: cross-site writes', (mode) => {
  const auth = configToml({ mode, trusted_networks: ['127.0.0.0/8'] });

  it('refuses a cross-site text/plain rollback and leaves the config alone', async () => {
    const { booted, ts } = await bootWithSnapshot(auth);
    const before = fs.readFileSync(booted.configPath, 'utf8');
    for (const origin of ['http://evil.example', 'null', `http://127.0.0.1:${booted.port + 1}`]) {
      const res = await rollback(booted, ts, { Origin: origin });
      expect([origin, res.status, json(res)?.code]).toEqual([origin, 403, 'origin_mismatch']);
    }
    const fetchSite = await rollback(booted, ts, { 'Sec-Fetch-Site': 'cross-site' });
    expect(json(fetchSite)?.code).toBe('origin_mismatch');
    expect(fs.readFileSync(booted.configPath, 'utf8')).toBe(before);
    // Same origin, and an API client that sends no Origin, still roll back.
    expect((await rollback(booted, ts, { Origin: `http://127.0.0.1:${booted.port}` })).status).toBe(200);
    expect((await rollback(booted, ts, { 'Sec-Fetch-Site': 'same-origin' })).status).toBe(200);
    expect((await rollback(booted, ts, {})).status).toBe(200);
  });

  it('refuses a cross-site photo upload and stores nothing', async () => {
    const booted = await services.boot({ configToml: auth });
    const photo = multipartPhoto();
    const upload = (headers: Record<string, string>) =>
      send(booted.port, {
        method: 'POST',
        path: '/api/v1/zones/photo',
        headers: { 'content-type': photo.type, 'content-length': String(photo.body.length), ...headers },
        rawBody: photo.body,
      });
    const foreign = await upload({ Origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect(json(foreign)?.code).toBe('origin_mismatch');
    expect(photosIn(booted)).toEqual([]);
    expect((await upload({ Origin: `http://127.0.0.1:${booted.port}` })).status).toBe(201);
    expect(photosIn(booted)).toHaveLength(1);
  });

  it('refuses a browser write to a host name it does not answer to (DNS rebinding)', async () => {
    const { booted, ts } = await bootWithSnapshot(auth);
    const rebound = `evil.example:${booted.port}`;
    const res = await rollback(booted, ts, { Host: rebound, Origin: `http://${rebound}` });
    expect(res.status).toBe(403);
    expect(json(res)?.code).toBe('host_not_allowed');
    expect(json(res)?.error).toContain('auth.allowed_hosts');
    const fetchOnly = await rollback(booted, ts, { Host: rebound, 'Sec-Fetch-Site': 'same-origin' });
    expect(json(fetchOnly)?.code).toBe('host_not_allowed');
    // Reads are not refused; an API client without Origin is not a browser.
    expect((await send(booted.port, { path: '/api/v1/info', headers: { Host: rebound } })).status).toBe(200);
    expect((await rollback(booted, ts, { Host: rebound })).status).toBe(200);
  });
});

describe('names a user adds, and HA ingress', () => {
  it('auth.allowed_hosts admits a name and its subdomains', async () => {
    const auth = `${configToml({ mode: 'disabled' })}allowed_hosts = ["raincheck.example.net", "*.lan.example"]\n`;
    const { booted, ts } = await bootWithSnapshot(auth);
    for (const host of [`raincheck.example.net:${booted.port}`, 'pi.lan.example']) {
      const res = await rollback(booted, ts, { Host: host, Origin: `https://${host}` });
      expect([host, res.status]).toEqual([host, 200]);
    }
    const other = await rollback(booted, ts, { Host: 'lan.example', Origin: 'https://lan.example' });
    expect(json(other)?.code).toBe('host_not_allowed');
  });

  it('a trusted proxy forwards the host the user typed: checked against Origin, not the list', async () => {
    const { booted, ts } = await bootWithSnapshot(
      configToml({
        mode: 'disabled',
        trusted_proxies: ['127.0.0.1/32'],
        proxy_auth_header: 'X-Remote-User-Id',
      }),
    );
    const ha = 'homeassistant.example:8123';
    const through = {
      Host: ha,
      Origin: `https://${ha}`,
      'X-Forwarded-Host': ha,
      'X-Ingress-Path': '/api/hassio_ingress/token',
      'X-Remote-User-Id': 'ha-user',
    };
    expect((await rollback(booted, ts, through)).status).toBe(200);
    const mismatch = await rollback(booted, ts, { ...through, Origin: 'https://evil.example' });
    expect(json(mismatch)?.code).toBe('origin_mismatch');
  });
});
