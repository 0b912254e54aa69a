import type { SourceHealth } from '../../../server/src/core/health';
import type { WeatherField } from '../../../server/src/weather/fields';
import { mergeFields, type MergeRules } from '../../../server/src/weather/merge';
import type { Reading } from '../../../server/src/weather/source';
import { HARD_OFFLINE_S, sourceStatus, type SourceActivity } from '../../../server/src/weather/status';

/** Source status (spec 3): from reachability plus live per-field ownership, never from age alone. */

const NOW = 1_750_000_000;

function activity(
  id: string,
  priority: number,
  values: Partial<Record<WeatherField, [number | null, number]>>,
  extra: Partial<SourceActivity> = {},
): SourceActivity {
  const readings = new Map<WeatherField, Reading>();
  let lastObservationEpoch: number | null = null;
  for (const [field, [value, epoch]] of Object.entries(values) as [WeatherField, [number | null, number]][]) {
    readings.set(field, { field, value, observedEpoch: epoch });
    lastObservationEpoch = Math.max(lastObservationEpoch ?? epoch, epoch);
  }
  return {
    id,
    kind: 'probe',
    enabled: true,
    priority,
    lastContactOkEpoch: null,
    lastObservationEpoch,
    note: null,
    readings,
    ...extra,
  };
}

function statuses(all: SourceActivity[], rules: MergeRules = { overrides: {}, chains: {} }, now = NOW) {
  const selections = mergeFields(all, rules, now);
  const rows = all.map((a) => sourceStatus(a, all, selections, now));
  for (const row of rows) expect(row.status).not.toBe('falling_through');
  return Object.fromEntries(rows.map((r) => [r.id, r])) as Record<string, SourceHealth>;
}

describe('sourceStatus', () => {
  it('is active for the owner of at least one live reading', () => {
    const rows = statuses([activity('station', 100, { air_temp_f: [72, NOW - 10] })]);
    expect(rows.station).toEqual({
      id: 'station',
      kind: 'probe',
      enabled: true,
      last_seen_epoch: NOW - 10,
      stale_for_s: 10,
      status: 'active',
      note: null,
    });
  });

  it('is standby when a strictly higher priority source owns every reading it could provide', () => {
    const rows = statuses([
      activity('station', 100, { air_temp_f: [72, NOW - 10], rh_pct: [50, NOW - 10] }),
      activity('cloud', 50, { air_temp_f: [70, NOW - 60], rh_pct: [45, NOW - 60] }),
    ]);
    expect(rows.station?.status).toBe('active');
    expect(rows.cloud?.status).toBe('standby');
  });

  it('is active, not standby, when it owns even one field the others lack', () => {
    const rows = statuses([
      activity('station', 100, { air_temp_f: [72, NOW - 10] }),
      activity('cloud', 50, { air_temp_f: [70, NOW - 60], pop_pct: [20, NOW - 60] }),
    ]);
    expect(rows.cloud?.status).toBe('active');
  });

  it('is watching when reachable with nothing to report', () => {
    const rows = statuses([
      activity('quiet', 50, {}, { lastContactOkEpoch: NOW - 30 }),
      activity('station', 100, { air_temp_f: [72, NOW - 10] }),
    ]);
    expect(rows.quiet?.status).toBe('watching');
    expect(rows.quiet?.last_seen_epoch).toBe(NOW - 30);
  });

  it('is watching when its reading is held by a lower priority source (a pin)', () => {
    const all = [
      activity('station', 100, { air_temp_f: [72, NOW - 10] }),
      activity('cloud', 50, { air_temp_f: [70, NOW - 60] }),
    ];
    const rows = statuses(all, { overrides: { air_temp_f: 'cloud' }, chains: {} });
    expect(rows.cloud?.status).toBe('active');
    expect(rows.station?.status).toBe('watching');
  });

  it('is watching when its reading is held by an equal priority source with a newer observation', () => {
    const rows = statuses([
      activity('a', 50, { air_temp_f: [70, NOW - 120] }),
      activity('b', 50, { air_temp_f: [71, NOW - 5] }),
    ]);
    expect(rows.b?.status).toBe('active');
    expect(rows.a?.status).toBe('watching');
  });

  it('is never falling_through: a stale former owner that is still reachable reads watching', () => {
    const rows = statuses([
      activity('station', 100, { air_temp_f: [72, NOW - 1900] }, { lastContactOkEpoch: NOW - 20 }),
      activity('cloud', 50, { air_temp_f: [70, NOW - 60] }),
    ]);
    expect(rows.cloud?.status).toBe('active');
    expect(rows.station?.status).toBe('watching');
  });

  it('is offline when never seen', () => {
    const rows = statuses([activity('new', 50, {})]);
    expect(rows.new).toMatchObject({ status: 'offline', last_seen_epoch: null, stale_for_s: null });
    expect(rows.new?.note).toBe('never seen');
  });

  it('is offline after the hard-offline window without contact or observation, not before', () => {
    const seen = (at: number) =>
      statuses([activity('s', 50, {}, { lastContactOkEpoch: at })]).s as SourceHealth;
    expect(HARD_OFFLINE_S).toBe(1800);
    expect(seen(NOW - HARD_OFFLINE_S).status).toBe('watching');
    expect(seen(NOW - HARD_OFFLINE_S - 1)).toMatchObject({ status: 'offline', stale_for_s: 1801 });
  });

  it('counts an observation as being seen, even without a successful fetch', () => {
    const rows = statuses([activity('s', 50, { air_temp_f: [72, NOW - 600] }, { lastContactOkEpoch: null })]);
    expect(rows.s?.status).toBe('active');
  });

  it('stays reachable on recent contact even when every reading has aged out (status is not age)', () => {
    const rows = statuses([
      activity('s', 50, { air_temp_f: [72, NOW - 5000] }, { lastContactOkEpoch: NOW - 60 }),
    ]);
    expect(rows.s?.status).toBe('watching');
  });

  it('keeps the failure note on an offline source', () => {
    const rows = statuses([
      activity('s', 50, {}, { lastContactOkEpoch: NOW - 4000, note: 'HTTP 401 from provider' }),
    ]);
    expect(rows.s).toMatchObject({ status: 'offline', note: 'HTTP 401 from provider' });
  });

  it('reports a disabled source as offline and not enabled', () => {
    const rows = statuses([activity('off', 50, {}, { enabled: false, lastContactOkEpoch: NOW })]);
    expect(rows.off).toMatchObject({ status: 'offline', enabled: false, note: 'disabled in the config' });
  });
});
