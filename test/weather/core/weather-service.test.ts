import { HealthRegistry } from '../../../server/src/core/health';
import { FIELD_SPECS } from '../../../server/src/weather/fields';
import type { WeatherSnapshot } from '../../../server/src/weather/snapshot';
import { appliedConfig, makeHarness, T0, type Harness } from './harness';
import { WEATHER_SNAPSHOT_KEYS } from '../../helpers/weather-snapshot-keys';

/**
 * The weather service end to end: readings enter through a probe source's
 * real sink, and the snapshot, `current_weather`, source health and bus
 * events come out. Time is a ManualClock; the test calls snapshot() / tick()
 * directly instead of waiting for the service's timers.
 */

const SPEC_KEYS = WEATHER_SNAPSHOT_KEYS;

const ARRAY_KEYS = new Set(['pressure_trend_inhg', 'lightning_recent']);

function expectEmpty(snapshot: WeatherSnapshot): void {
  for (const key of SPEC_KEYS) {
    expect(snapshot).toHaveProperty(key);
    if (ARRAY_KEYS.has(key)) expect(snapshot[key]).toEqual([]);
    else if (key === 'source_label') expect(typeof snapshot.source_label).toBe('string');
    else if (key === 'has_live_station') expect(snapshot.has_live_station).toBe(false);
    else expect(snapshot[key]).toBeNull();
  }
}

const TWO_SOURCES = appliedConfig([
  { id: 'station', kind: 'probe', priority: 100 },
  { id: 'model', kind: 'probe_model', priority: 50 },
]);

let h: Harness;

async function start(config = TWO_SOURCES, options: { demo?: boolean } = {}): Promise<Harness> {
  h = makeHarness(config, options);
  await h.service.start();
  return h;
}

afterEach(async () => {
  await h?.service.stop();
  jest.useRealTimers();
});

function healthOf(id: string) {
  return h.service.sourceHealth().find((row) => row.id === id);
}

describe('empty snapshot', () => {
  it('has every spec 2.2 key with nulls, empty arrays and no live station when nothing is configured', async () => {
    await start(appliedConfig([]));
    expectEmpty(h.service.snapshot());
    expect(h.service.currentWeather()).toBeNull();
    expect(h.service.sourceHealth()).toEqual([]);
  });

  it('is the same without any config', async () => {
    await start(null as never);
    expectEmpty(h.service.snapshot());
  });

  it('stays empty while configured sources have said nothing', async () => {
    await start();
    h.probes.probe('station').ctx.sink.contact(true);
    const snapshot = h.service.snapshot();
    expectEmpty(snapshot);
    expect(snapshot.source_label.length).toBeGreaterThan(0);
    expect(healthOf('station')?.status).toBe('watching');
    expect(healthOf('model')).toMatchObject({ status: 'offline', note: 'never seen' });
  });
});

describe('merged snapshot', () => {
  it('serves live values with their per-field observation times and derived fields', async () => {
    await start();
    h.publish('station', { air_temp_f: 90, rh_pct: 60 }, T0 - 10);
    h.publish('station', { wind_avg_mph: 4, wind_gust_mph: 9 }, T0 - 20);
    h.publish('station', { rain_in_today: 0.12, rain_intensity_in_hr: 0 }, T0 - 30);
    const s = h.service.snapshot();
    expect(s).toMatchObject({
      air_temp_f: 90,
      rh_pct: 60,
      wind_avg_mph: 4,
      wind_gust_mph: 9,
      rain_in_today: 0.12,
      rain_intensity_in_hr: 0,
      air_temp_live_epoch: T0 - 10,
      rh_live_epoch: T0 - 10,
      wind_live_epoch: T0 - 20,
      rain_live_epoch: T0 - 30,
      last_packet_epoch: T0 - 10,
      source_label: 'Probe station',
      has_live_station: true,
    });
    expect(Math.round(s.feels_like_f as number)).toBe(100);
    // 32.2 C at 60 % RH: dew point 23.5 C.
    expect(s.dew_point_f).toBeCloseTo(74.25, 1);
    expect(s.wet_bulb_f).not.toBeNull();
    // Fields nobody reported stay null, with no observation time.
    expect(s.pressure_inhg).toBeNull();
    expect(s.battery_v).toBeNull();
    expect(s.lightning_strikes_last_hour).toBeNull();
  });

  it('keeps a measured zero numeric, with its observation time', async () => {
    await start();
    h.publish('station', { rain_in_today: 0, wind_avg_mph: 0 });
    const s = h.service.snapshot();
    expect(s.rain_in_today).toBe(0);
    expect(s.wind_avg_mph).toBe(0);
    expect(s.rain_live_epoch).toBe(T0);
    expect(s.wind_live_epoch).toBe(T0);
  });

  it('never fabricates: humidity alone gives no dew point, and a null reading is no value', async () => {
    await start();
    h.publish('station', { rh_pct: 55, air_temp_f: null });
    const s = h.service.snapshot();
    expect(s.rh_pct).toBe(55);
    expect(s.air_temp_f).toBeNull();
    expect(s.air_temp_live_epoch).toBeNull();
    expect(s.dew_point_f).toBeNull();
    expect(s.feels_like_f).toBeNull();
  });

  it('a later null from the same source withdraws its earlier value', async () => {
    await start();
    h.publish('station', { air_temp_f: 71 });
    h.advance(60);
    h.publish('station', { air_temp_f: null });
    expect(h.service.snapshot().air_temp_f).toBeNull();
  });

  it('ignores an out-of-order older reading from the same source', async () => {
    await start();
    h.publish('station', { air_temp_f: 71 }, T0);
    h.publish('station', { air_temp_f: 65 }, T0 - 60);
    expect(h.service.snapshot().air_temp_f).toBe(71);
  });

  it('falls through to the next source when a reading ages past its max age, and comes back when fresh', async () => {
    await start();
    const maxAge = FIELD_SPECS.air_temp_f.maxAgeS;
    h.publish('station', { air_temp_f: 72 });
    h.publish('model', { air_temp_f: 70 });
    expect(h.service.currentWeather()?.air_temp_f).toMatchObject({
      source_id: 'station',
      selection_reason: 'priority',
    });

    h.advance(maxAge - 60);
    h.publish('model', { air_temp_f: 69 });
    h.advance(61);
    let s = h.service.snapshot();
    expect(s.air_temp_f).toBe(69);
    expect(s.air_temp_live_epoch).toBe(T0 + maxAge - 60);
    expect(s.has_live_station).toBe(false);
    expect(h.service.currentWeather()?.air_temp_f).toEqual({
      value: 69,
      source_id: 'model',
      observed_epoch: T0 + maxAge - 60,
      max_age_s: maxAge,
      measured: false,
      selection_reason: 'fallthrough',
    });

    h.publish('station', { air_temp_f: 73 });
    s = h.service.snapshot();
    expect(s.air_temp_f).toBe(73);
    expect(s.air_temp_live_epoch).toBe(h.now());
    expect(h.service.currentWeather()?.air_temp_f).toMatchObject({
      source_id: 'station',
      measured: true,
      selection_reason: 'priority',
    });
  });

  it('drops a field from current_weather and the snapshot when no source has it live', async () => {
    await start();
    h.publish('station', { rapid_wind_mph: 6, air_temp_f: 70 });
    expect(h.service.snapshot().rapid_wind_mph).toBe(6);
    h.advance(FIELD_SPECS.rapid_wind_mph.maxAgeS + 1);
    expect(h.service.snapshot().rapid_wind_mph).toBeNull();
    const current = h.service.currentWeather();
    expect(current).not.toBeNull();
    expect(current).not.toHaveProperty('rapid_wind_mph');
    expect(current?.air_temp_f?.value).toBe(70);
  });

  it('current_weather samples carry value, source, observation time, max age, measured and reason', async () => {
    await start();
    h.publish('station', { air_temp_f: 72 }, T0 - 5);
    h.publish('model', { air_temp_f: 70, pop_pct: 30 }, T0 - 100);
    const current = h.service.currentWeather();
    expect(current).toEqual({
      air_temp_f: {
        value: 72,
        source_id: 'station',
        observed_epoch: T0 - 5,
        max_age_s: FIELD_SPECS.air_temp_f.maxAgeS,
        measured: true,
        selection_reason: 'priority',
      },
      pop_pct: {
        value: 30,
        source_id: 'model',
        observed_epoch: T0 - 100,
        max_age_s: FIELD_SPECS.pop_pct.maxAgeS,
        measured: false,
        selection_reason: 'priority',
      },
    });
    for (const sample of Object.values(current ?? {})) {
      expect(Number.isInteger(sample.observed_epoch)).toBe(true);
      expect(Number.isInteger(sample.max_age_s)).toBe(true);
    }
  });

  it('applies pins and chains from the config', async () => {
    await start(
      appliedConfig(
        [
          { id: 'station', kind: 'probe', priority: 100 },
          { id: 'model', kind: 'probe_model', priority: 50 },
        ],
        {
          engine: {
            overrides: { air_temp_f: 'model' },
            field_source_chains: { rh_pct: ['model', 'station'] },
          },
        },
      ),
    );
    h.publish('station', { air_temp_f: 72, rh_pct: 40, wind_avg_mph: 3 });
    h.publish('model', { air_temp_f: 70, rh_pct: 45, wind_avg_mph: 5 });
    const current = h.service.currentWeather();
    expect(current?.air_temp_f).toMatchObject({ source_id: 'model', selection_reason: 'pinned' });
    expect(current?.rh_pct).toMatchObject({ source_id: 'model', selection_reason: 'chain' });
    expect(current?.wind_avg_mph).toMatchObject({ source_id: 'station', selection_reason: 'priority' });
    // The station owns a field, so it is active; the pin leaves its other readings with a lower priority source.
    expect(healthOf('station')?.status).toBe('active');

    // The pinned source goes stale: the pin falls back to priority.
    h.advance(FIELD_SPECS.air_temp_f.maxAgeS - 10);
    h.publish('station', { air_temp_f: 74 });
    h.advance(20);
    expect(h.service.currentWeather()?.air_temp_f).toMatchObject({ source_id: 'station', value: 74 });
  });

  it('a reading stamped far in the future is not live and does not block later real readings', async () => {
    await start();
    h.publish('station', { air_temp_f: 150 }, T0 + 86_400 * 365);
    expect(h.service.snapshot().air_temp_f).toBeNull();
    h.advance(60);
    h.publish('station', { air_temp_f: 72 });
    const s = h.service.snapshot();
    expect(s.air_temp_f).toBe(72);
    expect(s.last_packet_epoch).toBe(h.now());
  });

  it('takes station and hub serials from the batch', async () => {
    await start();
    h.batch('station', {
      readings: [{ field: 'air_temp_f', value: 70, observedEpoch: T0 }],
      stationSerial: 'ST-00001',
      hubSerial: 'HB-00001',
    });
    expect(h.service.snapshot()).toMatchObject({ station_serial: 'ST-00001', hub_serial: 'HB-00001' });
  });

  it('names the source owning most fields in source_label', async () => {
    await start();
    h.publish('station', { air_temp_f: 70, rh_pct: 50 });
    h.publish('model', { pop_pct: 10 });
    expect(h.service.snapshot().source_label).toBe('Probe station + 1 more');
  });

  it('samples the pressure trend on tick, at most every 15 minutes', async () => {
    await start();
    h.publish('station', { pressure_inhg: 29.92 });
    h.service.tick();
    expect(h.service.snapshot().pressure_trend_inhg).toEqual([29.92]);
    h.advance(60);
    h.publish('station', { pressure_inhg: 29.9 });
    h.service.tick();
    expect(h.service.snapshot().pressure_trend_inhg).toEqual([29.92]);
    h.advance(900);
    h.publish('station', { pressure_inhg: 29.88 });
    h.service.tick();
    expect(h.service.snapshot().pressure_trend_inhg).toEqual([29.92, 29.88]);
  });
});

describe('lightning', () => {
  const strikes = [
    { epoch: T0 - 300, distanceMi: 9.5, energy: 1200 },
    { epoch: T0 - 120, distanceMi: 6.2, energy: 800 },
    { epoch: T0 - 30, distanceMi: 4.1, energy: 1500 },
  ];

  it('counts published strikes over the last hour and decays to 0 while the last strike persists', async () => {
    await start();
    h.batch('station', {
      readings: [{ field: 'air_temp_f', value: 80, observedEpoch: T0 }],
      strikes,
    });
    let s = h.service.snapshot();
    expect(s.lightning_strikes_last_hour).toBe(3);
    expect(s.last_strike_distance_mi).toBe(4.1);
    expect(s.last_strike_epoch).toBe(T0 - 30);
    expect(s.lightning_recent).toEqual([
      { epoch: T0 - 30, distance_mi: 4.1, energy: 1500 },
      { epoch: T0 - 120, distance_mi: 6.2, energy: 800 },
      { epoch: T0 - 300, distance_mi: 9.5, energy: 1200 },
    ]);

    // 40 minutes on, the oldest strikes are still inside the hour.
    h.advance(40 * 60);
    h.publish('station', { air_temp_f: 79 });
    expect(h.service.snapshot().lightning_strikes_last_hour).toBe(3);

    // An hour after the last strike, the station still reporting: 0, a measured zero.
    h.advance(21 * 60);
    h.publish('station', { air_temp_f: 78 });
    s = h.service.snapshot();
    expect(s.lightning_strikes_last_hour).toBe(0);
    expect(s.lightning_recent).toEqual([]);
    expect(s.last_strike_distance_mi).toBe(4.1);
    expect(s.last_strike_epoch).toBe(T0 - 30);
  });

  it('counts strikes that arrive on their own (a strike event is an observation)', async () => {
    await start();
    h.batch('station', { strikes });
    const s = h.service.snapshot();
    expect(s.lightning_strikes_last_hour).toBe(3);
    expect(s.last_strike_epoch).toBe(T0 - 30);
    expect(healthOf('station')?.status).toBe('active');
  });

  it('does not add interval counts and strike events that describe the same strikes', async () => {
    await start();
    h.batch('station', {
      readings: [
        { field: 'lightning_count_last_min', value: 2, observedEpoch: T0 },
        { field: 'lightning_avg_dist_mi', value: 5, observedEpoch: T0 },
      ],
      strikes: strikes.slice(1),
    });
    const s = h.service.snapshot();
    expect(s.lightning_strikes_last_hour).toBe(2);
    expect(s.lightning_count_last_min).toBe(2);
    expect(s.lightning_avg_dist_mi).toBe(5);
  });

  it('reports lightning_avg_dist_mi null for an interval without strikes', async () => {
    await start();
    h.publish('station', { lightning_count_last_min: 3, lightning_avg_dist_mi: 7.5 });
    expect(h.service.snapshot().lightning_avg_dist_mi).toBe(7.5);
    h.advance(60);
    h.publish('station', { lightning_count_last_min: 0, lightning_avg_dist_mi: null });
    const s = h.service.snapshot();
    expect(s.lightning_avg_dist_mi).toBeNull();
    expect(s.lightning_count_last_min).toBe(0);
    expect(s.lightning_strikes_last_hour).toBe(3);
  });

  it('is null, not 0, for a source with no lightning evidence at all', async () => {
    await start();
    h.publish('station', { air_temp_f: 70 });
    const s = h.service.snapshot();
    expect(s.lightning_strikes_last_hour).toBeNull();
    expect(s.lightning_count_last_min).toBeNull();
    expect(s.last_strike_epoch).toBeNull();
  });
});

describe('source health', () => {
  it('goes offline after the hard-offline window and degrades the instance', async () => {
    await start(appliedConfig([{ id: 'station', kind: 'probe', priority: 100 }]));
    const health = new HealthRegistry();
    health.set('weather', 'ok');
    health.provideSources(() => h.service.sourceHealth());
    h.probes.probe('station').ctx.sink.contact(true);
    h.publish('station', { air_temp_f: 70 });
    expect(healthOf('station')).toMatchObject({ status: 'active', last_seen_epoch: T0, stale_for_s: 0 });
    expect(health.overall()).toBe('ok');

    h.advance(1800);
    // Failed fetches do not count as being seen; the note explains. The reading is exactly max age: still live.
    h.probes.probe('station').ctx.sink.contact(false, 'connection refused');
    expect(healthOf('station')).toMatchObject({ status: 'active', note: 'connection refused' });
    expect(health.overall()).toBe('ok');

    h.advance(1);
    expect(healthOf('station')).toMatchObject({
      status: 'offline',
      stale_for_s: 1801,
      note: 'connection refused',
    });
    expect(health.overall()).toBe('degraded');

    h.probes.probe('station').ctx.sink.contact(true);
    expect(healthOf('station')).toMatchObject({ status: 'watching', note: null });
    expect(health.overall()).toBe('ok');
  });

  it('reads active, standby and watching from live ownership', async () => {
    await start(
      appliedConfig([
        { id: 'station', kind: 'probe', priority: 100 },
        { id: 'model', kind: 'probe_model', priority: 50 },
        { id: 'quiet', kind: 'probe', priority: 10 },
      ]),
    );
    h.publish('station', { air_temp_f: 72, rh_pct: 50 });
    h.publish('model', { air_temp_f: 70, rh_pct: 48 });
    h.probes.probe('quiet').ctx.sink.contact(true);
    const statuses = Object.fromEntries(h.service.sourceHealth().map((r) => [r.id, r.status]));
    expect(statuses).toEqual({ station: 'active', model: 'standby', quiet: 'watching' });

    // The station goes stale: the model takes over; the station is reachable (it answers), never falling_through.
    h.advance(FIELD_SPECS.air_temp_f.maxAgeS - 30);
    h.publish('model', { air_temp_f: 69, rh_pct: 49 });
    h.probes.probe('station').ctx.sink.contact(true);
    h.advance(31);
    const later = Object.fromEntries(h.service.sourceHealth().map((r) => [r.id, r.status]));
    expect(later.model).toBe('active');
    expect(later.station).toBe('watching');
    expect(Object.values(later)).not.toContain('falling_through');
  });

  it('reports a disabled source as offline and not enabled, never creates it, and does not degrade', async () => {
    await start(
      appliedConfig([
        { id: 'station', kind: 'probe', priority: 100 },
        { id: 'spare', kind: 'probe', priority: 50, enabled: false },
      ]),
    );
    const health = new HealthRegistry();
    health.provideSources(() => h.service.sourceHealth());
    h.publish('station', { air_temp_f: 70 });
    expect(h.probes.instances.has('spare')).toBe(false);
    expect(healthOf('spare')).toMatchObject({
      enabled: false,
      status: 'offline',
      note: 'disabled in the config',
    });
    expect(health.overall()).toBe('ok');
  });

  it('says an enabled source of a kind this build lacks is not supported', async () => {
    await start(appliedConfig([{ id: 'mystery', kind: 'no_such_kind', priority: 50 }]));
    expect(healthOf('mystery')).toMatchObject({ status: 'offline', note: 'not supported by this build' });
  });
});

describe('reconfigure', () => {
  it("changing one source's config restarts only that source", async () => {
    await start(
      appliedConfig([
        { id: 'a', priority: 100, config: { port: 1 } },
        { id: 'b', priority: 50, config: { port: 2 } },
      ]),
    );
    const [a1, b1] = [h.probes.probe('a'), h.probes.probe('b')];
    expect(a1.started && b1.started).toBe(true);
    h.publish('a', { air_temp_f: 72 });
    h.publish('b', { rh_pct: 40 });

    await h.applyConfig(
      appliedConfig(
        [
          { id: 'a', priority: 100, config: { port: 9 } },
          { id: 'b', priority: 50, config: { port: 2 } },
        ],
        { revision: 2 },
      ),
    );
    expect(h.probes.instances.get('a')).toHaveLength(2);
    expect(a1.stopped).toBe(true);
    expect(h.probes.probe('a').started).toBe(true);
    expect(h.probes.probe('a').ctx.config).toEqual({ port: 9 });
    expect(h.probes.instances.get('b')).toHaveLength(1);
    expect(b1.stopped).toBe(false);

    const s = h.service.snapshot();
    expect(s.rh_pct).toBe(40);
    expect(s.air_temp_f).toBeNull();
    // The old instance's sink is dead: a late publish from it is ignored.
    a1.ctx.sink.publish({ readings: [{ field: 'air_temp_f', value: 99, observedEpoch: T0 }] });
    expect(h.service.snapshot().air_temp_f).toBeNull();
  });

  it('applies a priority-only change without a restart', async () => {
    await start(
      appliedConfig([
        { id: 'a', priority: 100 },
        { id: 'b', priority: 50 },
      ]),
    );
    h.publish('a', { air_temp_f: 72 });
    h.publish('b', { air_temp_f: 70 });
    expect(h.service.snapshot().air_temp_f).toBe(72);

    await h.applyConfig(
      appliedConfig(
        [
          { id: 'a', priority: 10 },
          { id: 'b', priority: 50 },
        ],
        { revision: 2 },
      ),
    );
    expect(h.probes.instances.get('a')).toHaveLength(1);
    expect(h.probes.instances.get('b')).toHaveLength(1);
    expect(h.probes.probe('a').stopped).toBe(false);
    expect(h.service.snapshot().air_temp_f).toBe(70);
    expect(healthOf('a')?.status).toBe('standby');
  });

  it('drops a removed source, its readings and its health row, and starts an added one', async () => {
    await start(
      appliedConfig([
        { id: 'a', priority: 100 },
        { id: 'b', priority: 50 },
      ]),
    );
    h.publish('a', { air_temp_f: 72 });
    h.publish('b', { rh_pct: 40 });
    await h.applyConfig(
      appliedConfig(
        [
          { id: 'b', priority: 50 },
          { id: 'c', priority: 20 },
        ],
        { revision: 2 },
      ),
    );
    expect(h.probes.probe('a').stopped).toBe(true);
    expect(h.probes.probe('c').started).toBe(true);
    expect(h.service.sourceHealth().map((r) => r.id)).toEqual(['b', 'c']);
    const s = h.service.snapshot();
    expect(s.air_temp_f).toBeNull();
    expect(s.rh_pct).toBe(40);
  });

  it('stops a source that becomes disabled', async () => {
    await start(appliedConfig([{ id: 'a', priority: 100 }]));
    h.publish('a', { air_temp_f: 72 });
    await h.applyConfig(appliedConfig([{ id: 'a', priority: 100, enabled: false }], { revision: 2 }));
    expect(h.probes.probe('a').stopped).toBe(true);
    expect(h.service.snapshot().air_temp_f).toBeNull();
    expect(healthOf('a')).toMatchObject({ enabled: false, status: 'offline' });
  });

  it('rebuilds every source when the location changes', async () => {
    await start(appliedConfig([{ id: 'a', priority: 100 }]));
    await h.applyConfig(appliedConfig([{ id: 'a', priority: 100 }], { revision: 2, lat: 31 }));
    expect(h.probes.instances.get('a')).toHaveLength(2);
    expect(h.probes.probe('a').ctx.location.lat).toBe(31);
  });

  it('stops everything when the config goes away', async () => {
    await start(appliedConfig([{ id: 'a', priority: 100 }]));
    h.publish('a', { air_temp_f: 72 });
    await h.applyConfig(null);
    expect(h.probes.probe('a').stopped).toBe(true);
    expect(h.service.sourceHealth()).toEqual([]);
    expectEmpty(h.service.snapshot());
  });

  it('stop() stops every source', async () => {
    await start();
    await h.service.stop();
    expect(h.probes.probe('station').stopped).toBe(true);
    expect(h.probes.probe('model').stopped).toBe(true);
  });
});

describe('demo mode', () => {
  it('adds a demo_replay source when DEMO is set, with modelled (not measured) values', async () => {
    await start(appliedConfig([]), { demo: true });
    expect(h.service.sourceHealth()).toEqual([
      expect.objectContaining({ id: 'demo', kind: 'demo_replay', status: 'active' }),
    ]);
    const s = h.service.snapshot();
    expect(s.air_temp_f).not.toBeNull();
    expect(s.air_temp_live_epoch).toBe(T0);
    expect(s.source_label).toBe('Demo replay (synthetic weather)');
    expect(s.station_serial).toBe('ST-DEMO0001');
    // Synthetic weather is not a live station.
    expect(s.has_live_station).toBe(false);
    const current = h.service.currentWeather();
    expect(current?.air_temp_f).toMatchObject({ source_id: 'demo', measured: false });
  });

  it('adds it for features.demo_mode too, and not twice when the config already has one', async () => {
    await start(appliedConfig([], { demoMode: true }));
    expect(h.service.sourceHealth().map((r) => r.kind)).toEqual(['demo_replay']);
    await h.service.stop();
    await start(appliedConfig([{ id: 'mine', kind: 'demo_replay', priority: 10 }]), { demo: true });
    expect(h.service.sourceHealth().map((r) => r.id)).toEqual(['mine']);
  });

  it('is absent without the flag', async () => {
    await start(appliedConfig([]));
    expect(h.service.sourceHealth()).toEqual([]);
  });
});

describe('weather.snapshot bus event', () => {
  // The service coalesces emits with a 250 ms timer; jest's fake timers drive that timer
  // deterministically (promise and nextTick scheduling stay real so start() resolves normally).
  const fake = () => jest.useFakeTimers({ doNotFake: ['nextTick', 'queueMicrotask', 'setImmediate'] });

  it('fires after a publish, coalesces a burst, and skips an unchanged snapshot', async () => {
    fake();
    await start();
    const events: WeatherSnapshot[] = [];
    h.bus.on('weather.snapshot', (snapshot) => events.push(snapshot));
    jest.advanceTimersByTime(300);
    events.length = 0;

    h.publish('station', { air_temp_f: 72 });
    jest.advanceTimersByTime(300);
    expect(events).toHaveLength(1);
    expect(events[0]?.air_temp_f).toBe(72);

    // A burst inside the window: one event carrying the last state, no earlier than 250 ms after the last emit.
    h.publish('station', { rh_pct: 40 });
    h.publish('station', { wind_avg_mph: 3 });
    jest.advanceTimersByTime(200);
    expect(events).toHaveLength(1);
    jest.advanceTimersByTime(100);
    expect(events).toHaveLength(2);
    expect(events[1]).toMatchObject({ air_temp_f: 72, rh_pct: 40, wind_avg_mph: 3 });

    // A contact that changes nothing in the snapshot emits nothing.
    h.probes.probe('station').ctx.sink.contact(true);
    jest.advanceTimersByTime(1000);
    expect(events).toHaveLength(2);
  });

  it('tick() announces aging: a value that goes stale reaches subscribers', async () => {
    fake();
    await start();
    const events: WeatherSnapshot[] = [];
    h.bus.on('weather.snapshot', (snapshot) => events.push(snapshot));
    h.publish('station', { rapid_wind_mph: 5 });
    jest.advanceTimersByTime(300);
    expect(events.at(-1)?.rapid_wind_mph).toBe(5);
    h.advance(FIELD_SPECS.rapid_wind_mph.maxAgeS + 1);
    h.service.tick();
    jest.advanceTimersByTime(300);
    expect(events.at(-1)?.rapid_wind_mph).toBeNull();
  });
});
