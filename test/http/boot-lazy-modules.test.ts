import { serviceTracker } from '../helpers/service';

/**
 * An idle demo does not load what it does not use (bench idle-rss,
 * docs/architecture.md "Speed and memory"): the weather source kinds other
 * than the demo replay (and the gateway sweep's Tempest parser), the forecast
 * providers and the notification channels load on first use; so do zod, the
 * MQTT client, the mail and web-push libraries, the advisor, the radar and
 * the controller kinds other than dry-run, and luxon (issue 27). Each guarded
 * module counts its loads here; the demo boots and serves reads without any,
 * and the first use still finds the module.
 */

const mockLoads: string[] = [];
function mockCounted(name: string, path: string): unknown {
  mockLoads.push(name);
  return jest.requireActual(path);
}

jest.mock('../../server/src/weather/sources/tempest/tempest-udp', () =>
  mockCounted('tempest_udp', '../../server/src/weather/sources/tempest/tempest-udp'),
);
jest.mock('../../server/src/weather/sources/tempest/tempest-ws', () =>
  mockCounted('tempest_ws', '../../server/src/weather/sources/tempest/tempest-ws'),
);
jest.mock('../../server/src/weather/sources/tempest/tempest-messages', () =>
  mockCounted('tempest parser', '../../server/src/weather/sources/tempest/tempest-messages'),
);
jest.mock('../../server/src/weather/sources/ecowitt/local-poller', () =>
  mockCounted('ecowitt_local', '../../server/src/weather/sources/ecowitt/local-poller'),
);
jest.mock('../../server/src/weather/sources/ecowitt/ingest-source', () =>
  mockCounted('ecowitt_ingest', '../../server/src/weather/sources/ecowitt/ingest-source'),
);
jest.mock('../../server/src/weather/sources/webhook/webhook-source', () =>
  mockCounted('http_webhook', '../../server/src/weather/sources/webhook/webhook-source'),
);
jest.mock('../../server/src/weather/sources/open-meteo/current', () =>
  mockCounted('open_meteo', '../../server/src/weather/sources/open-meteo/current'),
);
jest.mock('../../server/src/weather/sources/nws/observation', () =>
  mockCounted('nws', '../../server/src/weather/sources/nws/observation'),
);
jest.mock('../../server/src/weather/sources/openweather/current', () =>
  mockCounted('openweather', '../../server/src/weather/sources/openweather/current'),
);
jest.mock('../../server/src/forecast/providers/open-meteo', () =>
  mockCounted('forecast open-meteo', '../../server/src/forecast/providers/open-meteo'),
);
jest.mock('../../server/src/forecast/providers/nws', () =>
  mockCounted('forecast nws', '../../server/src/forecast/providers/nws'),
);
jest.mock('../../server/src/forecast/providers/met-norway', () =>
  mockCounted('forecast met-norway', '../../server/src/forecast/providers/met-norway'),
);
jest.mock('../../server/src/notify/channels/ntfy', () =>
  mockCounted('ntfy', '../../server/src/notify/channels/ntfy'),
);
jest.mock('../../server/src/notify/channels/slack', () =>
  mockCounted('slack', '../../server/src/notify/channels/slack'),
);
jest.mock('../../server/src/notify/channels/email', () =>
  mockCounted('email', '../../server/src/notify/channels/email'),
);

// Issue 27's examples: libraries and domains an idle demo has no use for.
jest.mock('mqtt', () => mockCounted('mqtt', 'mqtt'));
jest.mock('mqtt/lib/client', () => mockCounted('mqtt client', 'mqtt/lib/client'));
jest.mock('nodemailer', () => mockCounted('nodemailer', 'nodemailer'));
jest.mock('web-push', () => mockCounted('web-push', 'web-push'));
jest.mock('zod', () => mockCounted('zod', 'zod'));
// Local dates go through core/tz (the zone files, luxon's wall-time rules without luxon's 0.5 MB of source).
jest.mock('luxon', () => mockCounted('luxon', 'luxon'));
jest.mock('../../server/src/advisor/advisor', () =>
  mockCounted('advisor', '../../server/src/advisor/advisor'),
);
jest.mock('../../server/src/radar/radar-service', () =>
  mockCounted('radar', '../../server/src/radar/radar-service'),
);
jest.mock('../../server/src/controllers/adapters/opensprinkler', () =>
  mockCounted('opensprinkler kind', '../../server/src/controllers/adapters/opensprinkler'),
);
jest.mock('../../server/src/controllers/adapters/rachio', () =>
  mockCounted('rachio kind', '../../server/src/controllers/adapters/rachio'),
);

const { boot } = serviceTracker();

it('the demo boots and serves reads without the source kinds, providers and channels it does not use', async () => {
  const { port } = await boot({ env: { DEMO: '1' } });
  const base = `http://127.0.0.1:${port}/api/v1`;
  for (const path of [
    '/health',
    '/info',
    '/config',
    '/snapshot',
    '/irrigation/snapshot',
    '/forecast/snapshot',
    '/config/field_sources',
  ]) {
    expect([path, (await fetch(`${base}${path}`)).status]).toEqual([path, 200]);
  }
  expect(mockLoads).toEqual([]);

  // The cloud source catalog reads each kind's catalog entry: those kinds load then, and are listed.
  const catalog = await fetch(`${base}/config/source_catalog`);
  expect(catalog.status).toBe(200);
  const kinds = ((await catalog.json()) as { cloud_sources: { kind: string }[] }).cloud_sources.map(
    (s) => s.kind,
  );
  expect(kinds).toEqual(['nws', 'open_meteo', 'openweather']);
  expect([...mockLoads].sort()).toEqual(expect.arrayContaining(['nws', 'open_meteo', 'openweather']));

  // A gateway upload loads the Ecowitt parser; with no such source the answer is still a 404.
  const upload = await fetch(`${base}/ingest/gateway`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'PASSKEY=ABC&tempf=70',
  });
  expect(upload.status).toBe(404);
  expect(mockLoads).toContain('ecowitt_ingest');
});
