import { serviceTracker } from '../helpers/service';

/**
 * The demo boots, answers reads and idles without loading zod (about 4.5 MB of
 * an idle demo's memory, bench idle-rss): schemas are built on first use
 * (core/zod-lazy.ts) and the demo config is applied as validating it would
 * (config/demo-config.ts). The first request that validates loads it.
 */

let mockZodLoads = 0;
jest.mock('zod', () => {
  mockZodLoads += 1;
  return jest.requireActual('zod');
});

const { boot } = serviceTracker();

async function get(port: number, path: string): Promise<number> {
  return (await fetch(`http://127.0.0.1:${port}${path}`)).status;
}

it('the demo boots and serves reads without zod; the first validating request loads it', async () => {
  const { port } = await boot({ env: { DEMO: '1' } });
  for (const path of [
    '/api/v1/health',
    '/api/v1/info',
    '/api/v1/config',
    '/api/v1/snapshot',
    '/api/v1/irrigation/snapshot',
    '/api/v1/forecast/snapshot',
    '/api/v1/auth/status',
  ]) {
    expect([path, await get(port, path)]).toEqual([path, 200]);
  }
  expect(mockZodLoads).toBe(0);

  const preview = await fetch(`http://127.0.0.1:${port}/api/v1/config/preview`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ candidate: { schema_version: 2 } }),
  });
  expect(preview.status).toBe(200);
  expect(((await preview.json()) as { ok: boolean }).ok).toBe(false);
  expect(mockZodLoads).toBe(1);
});
