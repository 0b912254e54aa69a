import http from 'node:http';
import fc from 'fast-check';
import { quietDemoClock, serviceTracker, type BootedService } from '../helpers/service';
import { PASSKEY, WEBHOOK_ID, WEBHOOK_SECRET } from './ingest-config';

/**
 * Issue 16, "Done means": a property-based fuzz over every POST and PUT route
 * (read from the service's own OpenAPI document, so a new route is fuzzed
 * without touching this file). Each route gets a slice of a fixed time budget;
 * bodies are arbitrary JSON, text, form and multipart bytes, plus
 * route-shaped bodies (actions, scenarios, mutated configs) that reach past
 * the first validation. No answer may be a 500, and the engine must keep
 * answering (health `engine` ok, a snapshot, a simulation) throughout.
 *
 * FUZZ_BUDGET_MS widens the budget for a longer local run.
 */

const BUDGET_MS = Number(process.env.FUZZ_BUDGET_MS ?? 24_000);
const REQUEST_TIMEOUT_MS = 10_000;
const ENGINE_CHECK_EVERY = 40;
const MIN_SLICE_MS = 800;
jest.setTimeout(BUDGET_MS + 60_000);

const services = serviceTracker();
const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
afterAll(() => agent.destroy());

interface Answer {
  status: number;
  text: string;
}

interface Exchange {
  method: string;
  path: string;
  contentType?: string;
  body?: Buffer;
}

function call(port: number, exchange: Exchange): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = {};
    if (exchange.contentType !== undefined) headers['content-type'] = exchange.contentType;
    if (exchange.body !== undefined) headers['content-length'] = String(exchange.body.length);
    const req = http.request(
      { host: '127.0.0.1', port, method: exchange.method, path: exchange.path, headers, agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error(`no answer in ${REQUEST_TIMEOUT_MS} ms`)));
    req.on('error', reject);
    req.end(exchange.body);
  });
}

async function getJson(port: number, path: string): Promise<Record<string, unknown>> {
  const answer = await call(port, { method: 'GET', path });
  expect([path, answer.status]).toEqual([path, 200]);
  return JSON.parse(answer.text) as Record<string, unknown>;
}

// ---- bodies ----

interface Body {
  contentType?: string;
  body?: Buffer;
  query?: string;
}

const json = (value: unknown): Body => ({
  contentType: 'application/json',
  body: Buffer.from(JSON.stringify(value) ?? 'null'),
});

const numbers = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -1, 1e13, 1e15, 1e300, -1e300, Number.MAX_SAFE_INTEGER, 2 ** 53 + 2, 0.5, -0),
);
const texts = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary', maxLength: 64 }),
  fc.constantFrom('', ' ', '..', '/', '__proto__', 'constructor'),
);
const anyJson = fc.jsonValue({ maxDepth: 5 });
const scalar = fc.oneof(numbers, texts, fc.boolean(), fc.constant(null));

const genericBody: fc.Arbitrary<Body> = fc.oneof(
  anyJson.map(json),
  fc.dictionary(texts, fc.oneof(scalar, anyJson)).map(json),
  texts.map((text) => ({ contentType: 'application/json', body: Buffer.from(text) })),
  texts.map((text) => ({ contentType: 'text/plain', body: Buffer.from(text) })),
  fc
    .dictionary(fc.constantFrom('PASSKEY', 'PASSWORD', 'ID', 'tempf', 'dateutc', 'x'), fc.string())
    .map((form) => ({
      contentType: 'application/x-www-form-urlencoded',
      body: Buffer.from(new URLSearchParams(form).toString()),
    })),
  fc.uint8Array({ maxLength: 256 }).map((bytes) => ({
    contentType: 'multipart/form-data; boundary=x',
    body: Buffer.from(bytes),
  })),
  fc.constant({}),
);

const ACTION_KINDS = [
  'run',
  'stop',
  'stop_all',
  'set_threshold',
  'toggle',
  'set_pause_until',
  'clear_pause_until',
  'set_override_tomorrow',
  'set_global_override',
  'set_zone_override',
  'run_sequence_now',
];

function actionBody(zones: string[]): fc.Arbitrary<Body> {
  const zone = fc.oneof(fc.constantFrom(...zones), texts);
  return fc
    .record(
      {
        kind: fc.oneof(fc.constantFrom(...ACTION_KINDS), texts),
        zone,
        seconds: numbers,
        epoch: fc.oneof(numbers, fc.integer({ min: 1_700_000_000, max: 1_900_000_000 })),
        key: fc.oneof(
          fc.constantFrom('max_wind_mph', 'min_temp_f', 'rain_skip_in', 'irrigation_pause', 'master_enable'),
          texts,
        ),
        value: numbers,
        on: fc.oneof(fc.boolean(), scalar),
        mode: fc.oneof(fc.constantFrom('auto', 'skip', 'run', 'none'), texts),
      },
      { requiredKeys: ['kind'] },
    )
    .map(json);
}

function scenarioBody(weatherKeys: string[], now: number): fc.Arbitrary<Body> {
  const record = fc.dictionary(fc.oneof(fc.constantFrom(...weatherKeys), texts), fc.oneof(scalar, anyJson), {
    maxKeys: 6,
  });
  return fc
    .record(
      {
        now_epoch: fc.oneof(fc.integer({ min: now - 366 * 86400, max: now + 366 * 86400 }), numbers),
        weather: record,
        forecast: fc.dictionary(
          fc.constantFrom('daily', 'hourly', 'status', 'generated_epoch', 'x'),
          fc.oneof(scalar, fc.array(fc.dictionary(texts, scalar), { maxLength: 3 })),
        ),
      },
      { requiredKeys: [] },
    )
    .map(json);
}

/** The live config with a few values replaced at random paths (auth left alone: the fuzz runs open). */
function mutatedConfig(doc: Record<string, unknown>): fc.Arbitrary<Record<string, unknown>> {
  const paths = leafPaths(doc).filter((path) => path[0] !== 'auth');
  return fc
    .array(fc.tuple(fc.constantFrom(...paths), fc.oneof(scalar, anyJson)), { minLength: 1, maxLength: 3 })
    .map((edits) => {
      const copy = structuredClone(doc);
      for (const [path, value] of edits) setAt(copy, path, value);
      return copy;
    });
}

function leafPaths(value: unknown, prefix: string[] = []): string[][] {
  if (value === null || typeof value !== 'object') return [prefix];
  const entries = Object.entries(value as Record<string, unknown>);
  const below = entries.flatMap(([key, child]) => leafPaths(child, [...prefix, key]));
  return prefix.length > 0 ? [prefix, ...below] : below;
}

function setAt(target: Record<string, unknown>, path: string[], value: unknown): void {
  let node: Record<string, unknown> = target;
  for (const key of path.slice(0, -1)) {
    const next = node[key];
    if (next === null || typeof next !== 'object') return;
    node = next as Record<string, unknown>;
  }
  const last = path.at(-1);
  if (last !== undefined) node[last] = value;
}

function multipartPhoto(): fc.Arbitrary<Body> {
  return fc
    .record({
      field: fc.oneof(fc.constant('file'), texts),
      filename: fc.oneof(fc.constantFrom('a.png', 'a.svg', 'a.jpg', ''), texts),
      type: fc.constantFrom('image/png', 'image/svg+xml', 'text/html', 'application/octet-stream'),
      bytes: fc.oneof(
        fc.uint8Array({ maxLength: 512 }),
        fc.constant(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13])),
        fc.constant(new TextEncoder().encode('<svg xmlns="http://www.w3.org/2000/svg"/>')),
      ),
    })
    .map(({ field, filename, type, bytes }) => {
      const head = `--b\r\nContent-Disposition: form-data; name="${field}"; filename="${filename}"\r\nContent-Type: ${type}\r\n\r\n`;
      return {
        contentType: 'multipart/form-data; boundary=b',
        body: Buffer.concat([Buffer.from(head, 'latin1'), Buffer.from(bytes), Buffer.from('\r\n--b--\r\n')]),
      };
    });
}

interface Context {
  /** The service's now (epoch seconds). */
  now: number;
  zones: string[];
  weatherKeys: string[];
  config: Record<string, unknown>;
  snapshots: string[];
}

function bodiesFor(route: string, ctx: Context): fc.Arbitrary<Body> {
  const configs = mutatedConfig(ctx.config);
  const specific: Record<string, fc.Arbitrary<Body>> = {
    '/api/v1/irrigation/action': actionBody(ctx.zones),
    '/api/v1/irrigation/simulate': scenarioBody(ctx.weatherKeys, ctx.now),
    '/api/v1/config': configs.map(json),
    '/api/v1/config/preview': configs.map((candidate) => json({ candidate })),
    '/api/v1/wizard/draft': configs.map(json),
    '/api/v1/config/rollback': fc
      .oneof(fc.constantFrom(...ctx.snapshots, 'nope'), texts)
      .map((ts) => ({ ...json({}), query: `?to=${encodeURIComponent(ts)}` })),
    '/api/v1/config/raw': texts.map((text) => ({
      contentType: 'text/plain',
      body: Buffer.from(`schema_version = 2\n${text}`),
    })),
    '/api/v1/zones/photo': multipartPhoto(),
    '/api/v1/auth/tokens': fc.record({ name: fc.oneof(texts, scalar) }).map(json),
    '/api/v1/auth/login': fc
      .record({ username: fc.oneof(texts, scalar), password: fc.oneof(texts, scalar) })
      .map(json),
    '/api/v1/auth/setup': fc
      .record({ username: fc.oneof(texts, scalar), password: fc.oneof(texts, scalar) })
      .map(json),
    '/ingest/webhook/{id}': fc
      .record({ data: fc.dictionary(fc.constantFrom('temp_c', 'x'), fc.oneof(scalar, anyJson)) })
      .map((value) => ({ ...json(value), query: `?token=${WEBHOOK_SECRET}` })),
    '/ingest/gateway': fc
      .dictionary(fc.constantFrom('tempf', 'humidity', 'dateutc', 'rainratein', 'x'), fc.string())
      .map((form) => ({
        contentType: 'application/x-www-form-urlencoded',
        body: Buffer.from(new URLSearchParams({ PASSKEY, ...form }).toString()),
      })),
  };
  const own = specific[route] ?? specific[route.replace(/^\/api\/v1/, '')];
  return own ? fc.oneof({ arbitrary: own, weight: 3 }, { arbitrary: genericBody, weight: 1 }) : genericBody;
}

function concretePath(template: string, id: string): string {
  return template.replace(/\{[^}]+\}/g, encodeURIComponent(id));
}

// ---- the run ----

let booted: BootedService;
let ctx: Context;
let routes: { method: string; path: string }[];

beforeAll(async () => {
  booted = await services.boot({ env: { DEMO: '1' }, serviceOptions: { clock: quietDemoClock() } });
  const port = booted.port;
  // Push receivers to fuzz past their look-ups.
  const doc = await getJson(port, '/api/v1/config');
  const sources = (doc.sources as unknown[] | undefined) ?? [];
  doc.sources = [
    ...sources,
    { id: 'console', priority: 100, kind: 'ecowitt_ingest', config: { passkey: PASSKEY } },
    {
      id: WEBHOOK_ID,
      priority: 90,
      kind: 'http_webhook',
      config: { secret: WEBHOOK_SECRET, fields: [{ path: 'data.temp_c', field: 'air_temp_f', unit: 'c' }] },
    },
  ];
  const saved = await call(port, { method: 'PUT', path: '/api/v1/config', ...json(doc) });
  expect(saved.status).toBe(200);
  const snapshot = await getJson(port, '/api/v1/irrigation/snapshot');
  const weather = await getJson(port, '/api/v1/snapshot');
  const list = (await getJson(port, '/api/v1/config/snapshots')).snapshots as { ts: string }[];
  ctx = {
    now: snapshot.last_refresh_epoch as number,
    zones: (snapshot.zones as { slug: string }[]).map((z) => z.slug),
    weatherKeys: Object.keys(weather),
    config: await getJson(port, '/api/v1/config'),
    snapshots: list.map((s) => s.ts),
  };
  const openapi = await getJson(port, '/docs/openapi.json');
  routes = Object.entries(openapi.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) =>
    ['post', 'put'].filter((m) => m in ops).map((method) => ({ method: method.toUpperCase(), path })),
  );
  // Owner setup turns auth on: it goes last, so every other route is fuzzed open.
  routes.sort((a, b) => Number(a.path.endsWith('/auth/setup')) - Number(b.path.endsWith('/auth/setup')));
});

it('no POST or PUT answers 500, and the engine never stops', async () => {
  expect(routes.length).toBeGreaterThan(20);
  const port = booted.port;
  const slice = Math.max(MIN_SLICE_MS, Math.floor(BUDGET_MS / routes.length));
  const failures: string[] = [];
  const perRoute: Record<string, number> = {};
  let sent = 0;

  const engineAnswers = async (): Promise<void> => {
    const health = await getJson(port, '/api/v1/health');
    const subsystems = health.subsystems as Record<string, string>;
    if (subsystems.engine !== 'ok')
      failures.push(`engine ${subsystems.engine}: ${JSON.stringify(health.notes)}`);
    const simulated = await call(port, { method: 'POST', path: '/api/v1/irrigation/simulate', ...json({}) });
    if (simulated.status !== 200) failures.push(`simulate answered ${simulated.status}: ${simulated.text}`);
  };

  for (const route of routes) {
    const bodies = bodiesFor(route.path, ctx);
    const ids = fc.oneof(fc.constantFrom(WEBHOOK_ID, '1', '999'), texts);
    await fc
      .assert(
        fc.asyncProperty(bodies, ids, async (body, id) => {
          const path = `${concretePath(route.path, id)}${body.query ?? ''}`;
          const answer = await call(port, {
            method: route.method,
            path,
            contentType: body.contentType,
            body: body.body,
          });
          sent += 1;
          perRoute[route.path] = (perRoute[route.path] ?? 0) + 1;
          if (sent % ENGINE_CHECK_EVERY === 0) await engineAnswers();
          if (answer.status === 500 || answer.text.includes('"internal_error"')) {
            failures.push(`${route.method} ${path} -> ${answer.status} ${answer.text.slice(0, 200)}`);
            return false;
          }
          return true;
        }),
        {
          numRuns: 1_000_000,
          interruptAfterTimeLimit: slice,
          markInterruptAsFailure: false,
          endOnFailure: true,
        },
      )
      .catch((err: unknown) =>
        failures.push(`${route.method} ${route.path}: ${(err as Error).message.slice(0, 600)}`),
      );
  }
  await engineAnswers();
  process.stdout.write(
    `fuzz: ${sent} requests over ${routes.length} POST/PUT routes ${JSON.stringify(perRoute)}\n`,
  );
  expect((await call(port, { method: 'GET', path: '/api/v1/irrigation/snapshot' })).status).toBe(200);
  expect(failures).toEqual([]);
  // Enough requests that the budget was spent fuzzing, not waiting.
  expect(sent).toBeGreaterThan(routes.length * 10);
});
