import fs from 'node:fs';
import path from 'node:path';
import type { JsonObject } from '../../server/src/config/json-walk';
import { toToml } from '../../server/src/config/toml';
import { VALIDATED_CACHE_FILE } from '../../server/src/config/validated-cache';
import type * as ServiceHelpers from '../helpers/service';
import { makeDataDir, serviceTracker } from '../helpers/service';
import { OPENDOOR_MD5, OpenSprinklerPeer } from '../helpers/opensprinkler-peer';
import { systemClock } from '../../server/src/core/clock';

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

/** Modules an idle install does not use (issue 27): each counts its loads. */
const mockIdleLoads: string[] = [];
function mockCounted(name: string, path: string): unknown {
  mockIdleLoads.push(name);
  return jest.requireActual(path);
}
jest.mock('nodemailer', () => mockCounted('nodemailer', 'nodemailer'));
// mqtt's own connect() and its WebSocket and SOCKS transports (core/mqtt-connect.ts builds the client alone).
jest.mock('mqtt', () => mockCounted('mqtt connect()', 'mqtt'));
let mockMqttClientLoads = 0;
jest.mock('mqtt/lib/client', () => {
  mockMqttClientLoads += 1;
  return jest.requireActual('mqtt/lib/client');
});
jest.mock('web-push', () => mockCounted('web-push', 'web-push'));
// Local dates go through core/tz; luxon loads only for a webhook's ISO time strings.
jest.mock('luxon', () => mockCounted('luxon', 'luxon'));
jest.mock('../../server/src/advisor/advisor', () =>
  mockCounted('advisor', '../../server/src/advisor/advisor'),
);
jest.mock('../../server/src/radar/radar-service', () =>
  mockCounted('radar', '../../server/src/radar/radar-service'),
);
jest.mock('../../server/src/controllers/adapters/rachio', () =>
  mockCounted('rachio kind', '../../server/src/controllers/adapters/rachio'),
);
jest.mock('../../server/src/controllers/adapters/mqtt-command', () =>
  mockCounted('mqtt_command kind', '../../server/src/controllers/adapters/mqtt-command'),
);

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

/**
 * The bench's realistic install (idle-rss-installed): an OpenSprinkler (its
 * kind's schema is built on first use, core/zod-lazy.ts), two notification
 * channels and an MQTT broker. Restarted on the validated file it serves
 * reads without zod, mqtt's connect() and its unused transports, the mail library, web push, luxon, the advisor, the radar or
 * the schemas of controller kinds it does not use.
 */
it('a realistic install restarts without zod or the modules it does not use', async () => {
  const peer = await new OpenSprinklerPeer({ clock: systemClock }).start();
  const config: JsonObject = {
    ...INSTALLED,
    controllers: [
      {
        id: 'os',
        kind: 'opensprinkler',
        default: true,
        enabled: true,
        config: { host: peer.host, password_md5: OPENDOOR_MD5, poll_interval_s: 3600, timeout_s: 1 },
      },
    ],
    zones: {
      front_lawn: { ...((INSTALLED.zones as JsonObject).front_lawn as JsonObject), controller_id: 'os' },
      back_beds: { ...((INSTALLED.zones as JsonObject).back_beds as JsonObject), controller_id: 'os' },
    },
    notifications: {
      mqtt: { host: '127.0.0.1', port: 9 },
      ntfy: { base_url: 'http://127.0.0.1:9', topic: 'raincheck-idle' },
      email: {
        smtp_host: '127.0.0.1',
        smtp_port: 9,
        from_address: 'raincheck@example.org',
        to_address: 'owner@example.org',
      },
    },
  };
  try {
    const dataDir = makeDataDir();
    await jest.isolateModulesAsync(async () => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { bootService } = require('../helpers/service') as typeof ServiceHelpers;
      const first = await bootService({ dataDir, configToml: toToml(config), serviceOptions: BUILD });
      await first.service.stop();
    });
    mockZodLoads = 0;
    mockIdleLoads.length = 0;
    mockMqttClientLoads = 0;
    const { port, service } = await boot({ dataDir, serviceOptions: BUILD });
    for (const p of ['/api/v1/health', '/api/v1/info', '/api/v1/config', '/api/v1/irrigation/snapshot']) {
      expect([p, (await fetch(`http://127.0.0.1:${port}${p}`)).status]).toEqual([p, 200]);
    }
    expect(service.config.current?.config.controllers.map((c) => c.kind)).toEqual(['opensprinkler']);
    expect(mockZodLoads).toBe(0);
    expect(mockMqttClientLoads).toBe(1);
    expect(mockIdleLoads).toEqual([]);
  } finally {
    await peer.close();
  }
});

/**
 * The http_generic and mqtt_command kinds build their config schema on first
 * use too: an install driving them restarts on its validated file without zod.
 */
it('an install with http_generic and mqtt_command controllers restarts without zod', async () => {
  const config: JsonObject = {
    ...INSTALLED,
    controllers: [
      {
        id: 'board',
        kind: 'http_generic',
        default: true,
        enabled: true,
        config: {
          run: { url: 'http://127.0.0.1:9/run/{station}?s={seconds}', method: 'GET' },
          stop: { url: 'http://127.0.0.1:9/stop/{station}', method: 'GET' },
        },
      },
      {
        id: 'relays',
        kind: 'mqtt_command',
        enabled: true,
        config: {
          broker_host: '127.0.0.1',
          broker_port: 9,
          timeout_s: 1,
          zone_command_map: { '2': { command_topic: 'garden/relay2/set' } },
        },
      },
    ],
    zones: {
      front_lawn: { ...((INSTALLED.zones as JsonObject).front_lawn as JsonObject), controller_id: 'board' },
      back_beds: {
        ...((INSTALLED.zones as JsonObject).back_beds as JsonObject),
        controller_id: 'relays',
        controller_station: '2',
      },
    },
  };
  const dataDir = makeDataDir();
  await jest.isolateModulesAsync(async () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { bootService } = require('../helpers/service') as typeof ServiceHelpers;
    const first = await bootService({ dataDir, configToml: toToml(config), serviceOptions: BUILD });
    await first.service.stop();
  });
  mockZodLoads = 0;
  const { port, service } = await boot({ dataDir, serviceOptions: BUILD });
  for (const p of ['/api/v1/health', '/api/v1/info', '/api/v1/irrigation/snapshot']) {
    expect([p, (await fetch(`http://127.0.0.1:${port}${p}`)).status]).toEqual([p, 200]);
  }
  expect(service.config.current?.config.controllers.map((c) => c.kind)).toEqual([
    'http_generic',
    'mqtt_command',
  ]);
  expect(mockZodLoads).toBe(0);
});
