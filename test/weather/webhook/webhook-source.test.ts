import { ManualClock } from '../../../server/src/core/clock';
import { IngestRejected } from '../../../server/src/weather/source';
import {
  HttpWebhookSource,
  httpWebhookConfigSchema,
  httpWebhookKind,
  mapWebhookBody,
  resolvePath,
  webhookTime,
  type WebhookMapping,
} from '../../../server/src/weather/sources/webhook/webhook-source';
import { makeContext, readingOf, valueOf } from '../ecowitt/helpers';

const SECRET = 'b7f3c0a94e2d41f6a8c5';
const NOW_MS = Date.UTC(2024, 6, 16, 12, 0, 0);
const NOW = NOW_MS / 1000;

/** A station posting metric values, some scaled, one nested in an array. */
const BODY = {
  data: {
    temp_c_x10: 215,
    hum: '55',
    pressure_hpa: 1013.25,
    wind_ms: 3.6,
    gust_kmh: 18,
    rain_mm: 2.54,
    rate_mm_h: 0,
    lux: 12.5,
  },
  sensors: [{ dir: 250 }, { volts: 3610 }],
  observed: NOW - 30,
};

const MAPPINGS: WebhookMapping[] = [
  { path: 'data.temp_c_x10', field: 'air_temp_f', unit: 'c', scale: 0.1 },
  { path: 'data.hum', field: 'rh_pct', unit: 'pct' },
  { path: 'data.pressure_hpa', field: 'pressure_inhg', unit: 'hpa', offset: -1.25 },
  { path: 'data.wind_ms', field: 'wind_avg_mph', unit: 'ms' },
  { path: 'data.gust_kmh', field: 'wind_gust_mph', unit: 'kmh' },
  { path: 'data.rain_mm', field: 'rain_in_today', unit: 'mm' },
  { path: 'data.rate_mm_h', field: 'rain_intensity_in_hr', unit: 'mm_h' },
  { path: 'data.lux', field: 'illuminance_lx', unit: 'klux' },
  { path: 'sensors.0.dir', field: 'wind_dir_deg' },
  { path: 'sensors.1.volts', field: 'battery_v', unit: 'mv' },
  { path: 'data.uv', field: 'uv_index' }, // not in the body
];

function config(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { secret: SECRET, fields: MAPPINGS, time_path: 'observed', ...overrides };
}

function webhook(cfg: Record<string, unknown> = config()) {
  const made = makeContext(cfg, { clock: new ManualClock(NOW_MS), id: 'hook1' });
  const src = httpWebhookKind.create(made.ctx) as HttpWebhookSource;
  return { src, ...made };
}

function rejection(run: () => void): IngestRejected {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(IngestRejected);
    return err as IngestRejected;
  }
  throw new Error('expected IngestRejected');
}

describe('http_webhook mapping', () => {
  const result = mapWebhookBody(BODY, MAPPINGS, {
    receivedEpoch: NOW,
    timezone: 'UTC',
    timePath: 'observed',
  });
  const batch = { readings: result.readings };

  it('applies scale and offset in the sender unit, then converts to snapshot units', () => {
    expect(valueOf(batch, 'air_temp_f')).toBeCloseTo(70.7, 6); // 215 * 0.1 = 21.5 C
    expect(valueOf(batch, 'rh_pct')).toBe(55); // numeric string
    expect(valueOf(batch, 'pressure_inhg')).toBeCloseTo(29.8843, 4); // 1013.25 - 1.25 = 1012 hPa
    expect(valueOf(batch, 'wind_avg_mph')).toBeCloseTo(8.053, 4);
    expect(valueOf(batch, 'wind_gust_mph')).toBeCloseTo(11.1847, 4);
    expect(valueOf(batch, 'rain_in_today')).toBeCloseTo(0.1, 9);
    expect(valueOf(batch, 'rain_intensity_in_hr')).toBe(0); // a measured 0 stays 0
    expect(valueOf(batch, 'illuminance_lx')).toBe(12500);
    expect(valueOf(batch, 'wind_dir_deg')).toBe(250); // no unit: already in snapshot units
    expect(valueOf(batch, 'battery_v')).toBeCloseTo(3.61, 9);
  });

  it('gives no reading for a path absent from the body', () => {
    expect(readingOf(batch, 'uv_index')).toBeUndefined();
    expect(result.readings).toHaveLength(10);
  });

  it('stamps readings with the time at time_path', () => {
    expect(result.observedEpoch).toBe(NOW - 30);
    expect(result.readings.every((r) => r.observedEpoch === NOW - 30)).toBe(true);
    expect(result.hasNumeric).toBe(true);
  });

  it('passes an explicit null on as a null reading and skips non-numbers', () => {
    const mapped = mapWebhookBody(
      { a: null, b: 'n/a', c: true, d: { x: 1 }, e: '12.5' },
      [
        { path: 'a', field: 'air_temp_f' },
        { path: 'b', field: 'rh_pct' },
        { path: 'c', field: 'wind_avg_mph' },
        { path: 'd', field: 'wind_gust_mph' },
        { path: 'e', field: 'solar_w_m2' },
      ],
      { receivedEpoch: NOW, timezone: 'UTC' },
    );
    expect(mapped.readings).toEqual([
      { field: 'air_temp_f', value: null, observedEpoch: NOW },
      { field: 'solar_w_m2', value: 12.5, observedEpoch: NOW },
    ]);
    expect(
      mapWebhookBody({ a: null }, [{ path: 'a', field: 'air_temp_f' }], {
        receivedEpoch: NOW,
        timezone: 'UTC',
      }).hasNumeric,
    ).toBe(false);
  });

  it('rounds integer fields', () => {
    const mapped = mapWebhookBody({ n: 2.6 }, [{ path: 'n', field: 'lightning_count_last_min' }], {
      receivedEpoch: NOW,
      timezone: 'UTC',
    });
    expect(mapped.readings[0]!.value).toBe(3);
  });

  it('reads epoch seconds, epoch milliseconds and ISO times; else the receive time', () => {
    expect(webhookTime(NOW - 5, 'UTC')).toBe(NOW - 5);
    expect(webhookTime(String(NOW - 5), 'UTC')).toBe(NOW - 5);
    expect(webhookTime((NOW - 5) * 1000, 'UTC')).toBe(NOW - 5);
    expect(webhookTime('2024-07-16T11:59:00Z', 'UTC')).toBe(NOW - 60);
    expect(webhookTime('2024-07-16T06:59:00', 'America/Chicago')).toBe(NOW - 60); // no offset: deployment zone
    expect(webhookTime('yesterday', 'UTC')).toBeNull();
    expect(webhookTime(12, 'UTC')).toBeNull();
    const at = (time: unknown) =>
      mapWebhookBody({ t: time, v: 1 }, [{ path: 'v', field: 'uv_index' }], {
        receivedEpoch: NOW,
        timezone: 'UTC',
        timePath: 't',
      }).observedEpoch;
    expect(at('garbage')).toBe(NOW);
    expect(at(undefined)).toBe(NOW);
    expect(at(NOW + 3600)).toBe(NOW); // a time after receipt is clamped
  });

  it('follows dot paths through own keys and array indexes only', () => {
    expect(resolvePath(BODY, 'sensors.1.volts')).toEqual({ found: true, value: 3610 });
    expect(resolvePath(BODY, 'sensors.2.volts').found).toBe(false);
    expect(resolvePath(BODY, 'sensors.x').found).toBe(false);
    expect(resolvePath(BODY, 'data.temp_c_x10.deeper').found).toBe(false);
    expect(resolvePath(BODY, 'data.toString').found).toBe(false);
    expect(resolvePath({}, '__proto__').found).toBe(false);
  });
});

describe('http_webhook source', () => {
  it('publishes a mapped body and reports contact', () => {
    const { src, sink } = webhook();
    expect(src.kind).toBe('http_webhook');
    expect(src.id).toBe('hook1');
    src.ingest(BODY, 'application/json');
    expect(sink.contacts).toEqual([{ ok: true }]);
    expect(sink.batches).toHaveLength(1);
    expect(valueOf(sink.batches[0]!, 'air_temp_f')).toBeCloseTo(70.7, 6);
    expect(readingOf(sink.batches[0]!, 'uv_index')).toBeUndefined();
  });

  it('accepts JSON text and bytes', () => {
    const { src, sink } = webhook(config({ time_path: undefined }));
    src.ingest(JSON.stringify(BODY), 'application/json');
    src.ingest(Buffer.from(JSON.stringify({ data: { hum: 40 } })), 'application/json');
    expect(valueOf(sink.batches[0]!, 'rh_pct')).toBe(55);
    expect(readingOf(sink.batches[0]!, 'rh_pct')!.observedEpoch).toBe(NOW);
    expect(sink.batches[1]!.readings).toEqual([{ field: 'rh_pct', value: 40, observedEpoch: NOW }]);
  });

  it('rejects a body that is not an object, or maps to no number', () => {
    const { src, sink } = webhook();
    for (const body of ['not json', '[1,2]', 7, null, [BODY], { other: 1 }, { data: { hum: 'wet' } }]) {
      expect(rejection(() => src.ingest(body, 'application/json')).code).toBe('webhook_unparseable');
    }
    expect(sink.batches).toEqual([]);
    expect(sink.contacts.every((c) => !c.ok)).toBe(true);
  });

  it('compares the path secret exactly', () => {
    const { src } = webhook();
    expect(src.matchesSecret(SECRET)).toBe(true);
    expect(src.matchesSecret(SECRET.slice(0, -1) + 'x')).toBe(false);
    expect(src.matchesSecret(SECRET.slice(0, -1))).toBe(false);
    expect(src.matchesSecret(SECRET + 'x')).toBe(false);
    expect(src.matchesSecret(SECRET.toUpperCase())).toBe(false);
    expect(src.matchesSecret('')).toBe(false);
  });

  it("answers today's rain as unknown after local midnight", () => {
    const { src } = webhook();
    src.ingest(BODY, 'application/json');
    const midnight = Date.UTC(2024, 6, 17, 5, 0, 0) / 1000; // America/Chicago
    expect(src.readingsAt(midnight - 10)).toEqual([]);
    expect(src.readingsAt(midnight + 10)).toEqual([
      { field: 'rain_in_today', value: null, observedEpoch: NOW - 30 },
    ]);
  });
});

describe('http_webhook config', () => {
  const ok = (cfg: Record<string, unknown>) => httpWebhookConfigSchema.safeParse(cfg).success;

  it('accepts the example mapping', () => {
    expect(ok(config())).toBe(true);
    expect(ok({ secret: SECRET, fields: [{ path: 'temp', field: 'air_temp_f' }] })).toBe(true);
  });

  it('requires a secret of at least 16 characters', () => {
    expect(ok(config({ secret: 'short-secret-15' }))).toBe(false);
    expect(ok(config({ secret: 'sixteen-chars-ok' }))).toBe(true);
    expect(ok({ fields: MAPPINGS })).toBe(false);
  });

  it('refuses unknown fields and units, mismatched units, duplicates and typos', () => {
    const one = (mapping: Record<string, unknown>) => ok({ secret: SECRET, fields: [mapping] });
    expect(one({ path: 'x', field: 'air_temp_c' })).toBe(false);
    expect(one({ path: 'x', field: 'air_temp_f', unit: 'rankine' })).toBe(false);
    expect(one({ path: 'x', field: 'air_temp_f', unit: 'mph' })).toBe(false);
    expect(one({ path: 'x', field: 'uv_index', unit: 'pct' })).toBe(false);
    expect(one({ path: 'x', field: 'air_temp_f', units: 'c' })).toBe(false);
    expect(one({ path: 'a..b', field: 'air_temp_f' })).toBe(false);
    expect(one({ path: '', field: 'air_temp_f' })).toBe(false);
    expect(one({ path: 'x', field: 'air_temp_f', scale: 'ten' })).toBe(false);
    expect(ok({ secret: SECRET, fields: [] })).toBe(false);
    expect(
      ok({
        secret: SECRET,
        fields: [
          { path: 'a', field: 'air_temp_f' },
          { path: 'b', field: 'air_temp_f' },
        ],
      }),
    ).toBe(false);
  });

  it('provides any snapshot field', () => {
    expect(httpWebhookKind.provides).toContain('air_temp_f');
    expect(httpWebhookKind.provides).toContain('leaf_wetness_pct');
  });
});
