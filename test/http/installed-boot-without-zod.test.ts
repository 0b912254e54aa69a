import fs from 'node:fs';
import path from 'node:path';
import type { JsonObject } from '../../server/src/config/json-walk';
import { toToml } from '../../server/src/config/toml';
import { VALIDATED_CACHE_FILE } from '../../server/src/config/validated-cache';
import type * as ServiceHelpers from '../helpers/service';
import { makeDataDir, serviceTracker } from '../helpers/service';

/**
 * An installed service restarting on the config file it validated before
 * applies the cached validation (config/validated-cache.ts) and its sources
 * and controllers take their parsed blocks from it, so zod (about 4.5 MB of
 * an idle service, bench idle-rss) never loads. The first boot on the
 * hand-written file validates it (zod loads) and writes the cache; it runs in
 * its own module registry so the restart's zod loads are counted afresh.
 */

let mockZodLoads = 0;
jest.mock('zod', () => {
  mockZodLoads += 1;
  return jest.requireActual('zod');
});

const { boot } = serviceTracker();

/** The bench's installed config (bench/benchmarks/idle-rss.mjs), with a cloud source beside the station. */
const INSTALLED: JsonObject = {
  schema_version: 2,
  deployment: { location: { lat: 40.7, lon: -74.0 }, units: 'imperial' },
  sources: [
    { id: 'yard', kind: 'tempest_udp', priority: 100, enabled: true, config: { bind_addr: '127.0.0.1:0' } },
    { id: 'model', kind: 'open_meteo', priority: 10, enabled: true, config: { past_days: 2 } },
  ],
  controllers: [{ id: 'valves', kind: 'dry_run', default: true, enabled: true, config: {} }],
  zones: {
    front_lawn: {
      species: 'tall_fescue',
      soil_texture: 'loam',
      sprinkler_type: 'spray',
      controller_station: '1',
    },
    back_beds: {
      species: 'ornamental_shrubs',
      soil_texture: 'loam',
      sprinkler_type: 'drip',
      controller_station: '2',
    },
  },
};
const BUILD = { buildId: 'test-build' };

it('a restart on the unchanged config boots and serves reads without zod', async () => {
  const dataDir = makeDataDir();
  await jest.isolateModulesAsync(async () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { bootService } = require('../helpers/service') as typeof ServiceHelpers;
    const first = await bootService({ dataDir, configToml: toToml(INSTALLED), serviceOptions: BUILD });
    await first.service.stop();
  });
  expect(mockZodLoads).toBe(1);
  expect(fs.existsSync(path.join(dataDir, VALIDATED_CACHE_FILE))).toBe(true);

  mockZodLoads = 0;
  const { port, service } = await boot({ dataDir, serviceOptions: BUILD });
  for (const p of ['/api/v1/health', '/api/v1/info', '/api/v1/config', '/api/v1/snapshot']) {
    expect([p, (await fetch(`http://127.0.0.1:${port}${p}`)).status]).toEqual([p, 200]);
  }
  expect(service.config.health.status).toBe('ok');
  expect(service.weather.sourceHealth().map((s) => s.id)).toEqual(expect.arrayContaining(['yard', 'model']));
  expect(mockZodLoads).toBe(0);
});
