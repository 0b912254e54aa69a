import { serviceTracker } from '../helpers/service';

/**
 * An idle demo does not load what it does not use (bench idle-rss,
 * docs/architecture.md "Speed and memory"): the weather source kinds other
 * than the demo replay (and the gateway sweep's Tempest parser), the forecast
 * providers and the notification channels load on first use; so do zod, the
 * MQTT client, the mail and web-push libraries, the advisor, the radar and
 * the controller kinds other than dry-run, and luxon (issue 27). So do the
 * handlers of the route domains an idle service never runs (irrigation
 * history, sensors, soil probes, radar) and the modules only they use: their
 * paths register at boot, their handlers load on the first request. Each
 * guarded module counts its loads here; the demo boots and serves reads
 * without any, and the first use still finds the module.
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

// Route domains whose handlers load on their first request (routes/*-handlers.ts).
jest.mock('../../server/src/http/routes/irrigation-history-handlers', () =>
  mockCounted('history handlers', '../../server/src/http/routes/irrigation-history-handlers'),
);
jest.mock('../../server/src/irrigation/history/accuracy-report', () =>
  mockCounted('accuracy report', '../../server/src/irrigation/history/accuracy-report'),
);
jest.mock('../../server/src/irrigation/history/csv-export', () =>
  mockCounted('csv export', '../../server/src/irrigation/history/csv-export'),
);
jest.mock('../../server/src/irrigation/history/json-bodies', () =>
  mockCounted('json bodies', '../../server/src/irrigation/history/json-bodies'),
);
jest.mock('../../server/src/http/routes/sensors-handlers', () =>
  mockCounted('sensors handlers', '../../server/src/http/routes/sensors-handlers'),
);
jest.mock('../../server/src/ha/sensor-inventory', () =>
  mockCounted('sensor inventory', '../../server/src/ha/sensor-inventory'),
);
jest.mock('../../server/src/http/routes/soil-probe-handlers', () =>
  mockCounted('soil probe handlers', '../../server/src/http/routes/soil-probe-handlers'),
);
jest.mock('../../server/src/irrigation/soil/probe-list', () =>
  mockCounted('probe list', '../../server/src/irrigation/soil/probe-list'),
);
jest.mock('../../server/src/http/routes/radar-handlers', () =>
  mockCounted('radar handlers', '../../server/src/http/routes/radar-handlers'),
);
jest.mock('../../server/src/radar/bbox', () => mockCounted('radar bbox', '../../server/src/radar/bbox'));

// Modules an idle service loads no more: the config schema (the version number has its own module),
// the config form's builder, the forecast window and archive queries, the release feed (the check is off).
// (The delivery queue loads with the first notice: the demo's first start sends some, a restart none.)
jest.mock('../../server/src/config/schema', () =>
  mockCounted('config schema', '../../server/src/config/schema'),
);
jest.mock('../../server/src/config/form-schema', () =>
  mockCounted('config form schema', '../../server/src/config/form-schema'),
);
jest.mock('../../server/src/forecast/archive-query', () =>
  mockCounted('forecast queries', '../../server/src/forecast/archive-query'),
);
jest.mock('../../server/src/forecast/window', () =>
  mockCounted('forecast window', '../../server/src/forecast/window'),
);
jest.mock('../../server/src/ops/updates/release-feed', () =>
  mockCounted('release feed', '../../server/src/ops/updates/release-feed'),
);

// The action executor and its parsers load with the first action; HA helper adoption only with a link.
jest.mock('../../server/src/irrigation/action-executor', () =>
  mockCounted('action executor', '../../server/src/irrigation/action-executor'),
);
jest.mock('../../server/src/irrigation/controls/actions', () =>
  mockCounted('control actions', '../../server/src/irrigation/controls/actions'),
);
jest.mock('../../server/src/ha/adoption', () => mockCounted('ha adoption', '../../server/src/ha/adoption'));
// Home Assistant's location facts load only with a link.
jest.mock('../../server/src/ha/ha-facts', () => mockCounted('ha facts', '../../server/src/ha/ha-facts'));

// The config validator and the migrations load with the first config write (or a config file to check).
jest.mock('../../server/src/config/validate', () =>
  mockCounted('config validator', '../../server/src/config/validate'),
);
jest.mock('../../server/src/config/migrate', () =>
  mockCounted('config migrations', '../../server/src/config/migrate'),
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

it('the history, sensors, soil probe and radar routes load their handlers on the first request', async () => {
  const { port } = await boot({ env: { DEMO: '1' } });
  const base = `http://127.0.0.1:${port}/api/v1`;
  const lazy = [
    'history handlers',
    'accuracy report',
    'csv export',
    'json bodies',
    'sensors handlers',
    'sensor inventory',
    'soil probe handlers',
    'probe list',
    'radar handlers',
    'radar bbox',
  ];
  expect(mockLoads.filter((name) => lazy.includes(name))).toEqual([]);

  const history = await fetch(`${base}/irrigation/history?days=7`);
  expect(history.status).toBe(200);
  expect(await history.json()).toEqual(
    expect.objectContaining({ runs: expect.any(Array), daily: expect.any(Array) }),
  );
  const accuracy = await fetch(`${base}/irrigation/accuracy?days=abc`);
  expect(accuracy.status).toBe(400);
  expect(((await accuracy.json()) as { code: string }).code).toBe('invalid_query');
  const soil = await fetch(`${base}/sensors/soil`);
  expect(soil.status).toBe(200);
  expect(await soil.json()).toEqual(expect.objectContaining({ ha_configured: false, ha_reachable: false }));
  const probes = await fetch(`${base}/sensors/soil/probes`);
  expect(probes.status).toBe(200);
  expect(await probes.json()).toEqual({ probes: expect.any(Array) });
  // No bbox: the parser answers before any upstream (or the radar service) is asked.
  const radar = await fetch(`${base}/radar/windgrid`);
  expect(radar.status).toBe(400);
  expect(((await radar.json()) as { code: string }).code).toBe('bbox_missing');
  expect((await fetch(`http://127.0.0.1:${port}/api/radar/windgrid`)).status).toBe(404);
  await fetch(`${base}/irrigation/decisions`);

  // Each module loaded once: the first request kept the handlers for the next ones.
  expect(mockLoads.filter((name) => lazy.includes(name)).sort()).toEqual([...lazy].sort());
  expect(mockLoads).not.toContain('radar');
});

it('the config schema, its form and the forecast window queries load on the first request that needs them', async () => {
  const { port } = await boot({ env: { DEMO: '1' } });
  const base = `http://127.0.0.1:${port}/api/v1`;
  const lazy = ['config schema', 'config form schema', 'forecast queries', 'forecast window'];
  expect(mockLoads.filter((name) => lazy.includes(name))).toEqual([]);

  const schema = await fetch(`${base}/config/schema`);
  expect(schema.status).toBe(200);
  const properties = ((await schema.json()) as { properties: Record<string, unknown> }).properties;
  expect(Object.keys(properties)).toEqual(expect.arrayContaining(['schema_version', 'zones']));
  const window = await fetch(`${base}/forecast/window?track=nope&from=0&to=3600`);
  expect(window.status).toBe(400);
  expect(((await window.json()) as { code: string }).code).toBe('track_unknown');
  // The archive's lead range (0-47) is the store's, read by the forecast service without the parser.
  const archive = await fetch(`${base}/forecast/archive?from=0&to=3600&lead_h=48`);
  expect(archive.status).toBe(400);
  expect(((await archive.json()) as { code: string }).code).toBe('archive_lead_invalid');

  expect(mockLoads.filter((name) => lazy.includes(name)).sort()).toEqual([...lazy].sort());
  expect(mockLoads).not.toContain('release feed');
});

it('the action executor and its parsers load with the first action', async () => {
  const { port } = await boot({ env: { DEMO: '1' } });
  const base = `http://127.0.0.1:${port}/api/v1`;
  expect(mockLoads).not.toContain('action executor');
  expect(mockLoads).not.toContain('control actions');

  const refused = await fetch(`${base}/irrigation/action`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ kind: 'set_threshold', key: 'max_wind_mph', value: 51 }),
  });
  expect(refused.status).toBe(400);
  expect(((await refused.json()) as { code: string }).code).toBe('threshold_out_of_range');
  expect(mockLoads).toEqual(expect.arrayContaining(['action executor', 'control actions']));
  // The demo has no Home Assistant link: nothing to adopt, the adoption never loads.
  expect(mockLoads).not.toContain('ha adoption');
});

it('the config validator and the migrations load with the first check of a config', async () => {
  const { port } = await boot({ env: { DEMO: '1' } });
  const base = `http://127.0.0.1:${port}/api/v1`;
  expect(mockLoads).not.toContain('config validator');
  expect(mockLoads).not.toContain('config migrations');

  const validation = await fetch(`${base}/config/validate`);
  expect(validation.status).toBe(200);
  expect(await validation.json()).toEqual(expect.objectContaining({ ok: true, errors: [] }));
  const preview = await fetch(`${base}/config/preview`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ candidate: { schema_version: 2, zones: { 'Bad Slug': {} } } }),
  });
  expect(preview.status).toBe(200);
  expect(((await preview.json()) as { ok: boolean }).ok).toBe(false);
  expect(mockLoads).toEqual(expect.arrayContaining(['config validator', 'config migrations']));
});
