import { FIELD_SPECS, type WeatherField } from '../../../server/src/weather/fields';
import { isLive, mergeFields, type MergeRules, type MergeSource } from '../../../server/src/weather/merge';
import type { Reading } from '../../../server/src/weather/source';

/** Per-field ownership (pure): priority, fall-through, pins, chains, ties, honesty. */

const NOW = 1_750_000_000;
const NO_RULES: MergeRules = { overrides: {}, chains: {} };
const AIR_MAX_AGE = FIELD_SPECS.air_temp_f.maxAgeS;

function source(
  id: string,
  priority: number,
  values: Partial<Record<WeatherField, [number | null, number]>>,
): MergeSource {
  const readings = new Map<WeatherField, Reading>();
  for (const [field, [value, observedEpoch]] of Object.entries(values) as [
    WeatherField,
    [number | null, number],
  ][]) {
    readings.set(field, { field, value, observedEpoch });
  }
  return { id, priority, readings };
}

describe('mergeFields', () => {
  it('gives each field to the highest priority source with a live reading', () => {
    const selections = mergeFields(
      [
        source('cloud', 50, { air_temp_f: [70, NOW - 60], rh_pct: [40, NOW - 60] }),
        source('station', 100, { air_temp_f: [72, NOW - 10] }),
      ],
      NO_RULES,
      NOW,
    );
    expect(selections.get('air_temp_f')).toEqual({
      field: 'air_temp_f',
      value: 72,
      sourceId: 'station',
      observedEpoch: NOW - 10,
      maxAgeS: AIR_MAX_AGE,
      reason: 'priority',
    });
    // The station has no humidity: the cloud owns it, and it is its own best provider.
    expect(selections.get('rh_pct')).toMatchObject({ sourceId: 'cloud', value: 40, reason: 'priority' });
  });

  it('falls through to the next source when the higher priority reading goes stale, and returns when fresh', () => {
    const station = source('station', 100, { air_temp_f: [72, NOW - AIR_MAX_AGE - 1] });
    const cloud = source('cloud', 50, { air_temp_f: [70, NOW - 30] });
    const stale = mergeFields([station, cloud], NO_RULES, NOW);
    expect(stale.get('air_temp_f')).toMatchObject({ sourceId: 'cloud', value: 70, reason: 'fallthrough' });

    // Exactly max age old is still live.
    const edge = source('station', 100, { air_temp_f: [72, NOW - AIR_MAX_AGE] });
    expect(mergeFields([edge, cloud], NO_RULES, NOW).get('air_temp_f')?.sourceId).toBe('station');

    const fresh = source('station', 100, { air_temp_f: [73, NOW - 5] });
    expect(mergeFields([fresh, cloud], NO_RULES, NOW).get('air_temp_f')).toMatchObject({
      sourceId: 'station',
      value: 73,
      reason: 'priority',
    });
  });

  it('uses each field its own max age (rapid wind ages out long before air temperature)', () => {
    const station = source('station', 100, {
      air_temp_f: [72, NOW - 120],
      rapid_wind_mph: [5, NOW - 120],
    });
    const selections = mergeFields([station], NO_RULES, NOW);
    expect(selections.has('air_temp_f')).toBe(true);
    expect(selections.has('rapid_wind_mph')).toBe(false);
  });

  it('lets a pin beat priority while the pinned source is live, and falls back when it is stale', () => {
    const rules: MergeRules = { overrides: { air_temp_f: 'cloud' }, chains: {} };
    const station = source('station', 100, { air_temp_f: [72, NOW - 10], rh_pct: [50, NOW - 10] });
    const live = mergeFields([station, source('cloud', 10, { air_temp_f: [70, NOW - 60] })], rules, NOW);
    expect(live.get('air_temp_f')).toMatchObject({ sourceId: 'cloud', value: 70, reason: 'pinned' });
    // Pins are per field: the unpinned field still goes by priority.
    expect(live.get('rh_pct')).toMatchObject({ sourceId: 'station', reason: 'priority' });

    const stale = mergeFields(
      [station, source('cloud', 10, { air_temp_f: [70, NOW - AIR_MAX_AGE - 1] })],
      rules,
      NOW,
    );
    expect(stale.get('air_temp_f')).toMatchObject({ sourceId: 'station', value: 72 });
  });

  it('ignores a pin to a source that does not exist', () => {
    const rules: MergeRules = { overrides: { air_temp_f: 'gone' }, chains: {} };
    const selections = mergeFields([source('station', 100, { air_temp_f: [72, NOW] })], rules, NOW);
    expect(selections.get('air_temp_f')).toMatchObject({ sourceId: 'station', reason: 'priority' });
  });

  it('orders sources by the field chain, skipping chain members without a live reading', () => {
    const rules: MergeRules = { overrides: {}, chains: { air_temp_f: ['c', 'b', 'a'] } };
    const a = source('a', 100, { air_temp_f: [71, NOW - 10] });
    const b = source('b', 50, { air_temp_f: [72, NOW - 10] });
    const cStale = source('c', 10, { air_temp_f: [73, NOW - AIR_MAX_AGE - 1] });
    expect(mergeFields([a, b, cStale], rules, NOW).get('air_temp_f')).toMatchObject({
      sourceId: 'b',
      reason: 'chain',
    });
    const cLive = source('c', 10, { air_temp_f: [73, NOW - 10] });
    expect(mergeFields([a, b, cLive], rules, NOW).get('air_temp_f')).toMatchObject({
      sourceId: 'c',
      reason: 'chain',
    });
  });

  it('falls back to priority when no chain member is live', () => {
    const rules: MergeRules = { overrides: {}, chains: { air_temp_f: ['b'] } };
    const a = source('a', 100, { air_temp_f: [71, NOW - 10] });
    const b = source('b', 50, { air_temp_f: [72, NOW - AIR_MAX_AGE - 1] });
    expect(mergeFields([a, b], rules, NOW).get('air_temp_f')).toMatchObject({
      sourceId: 'a',
      reason: 'priority',
    });
  });

  it('a live pin beats a chain', () => {
    const rules: MergeRules = { overrides: { air_temp_f: 'a' }, chains: { air_temp_f: ['b'] } };
    const a = source('a', 10, { air_temp_f: [71, NOW - 10] });
    const b = source('b', 50, { air_temp_f: [72, NOW - 10] });
    expect(mergeFields([a, b], rules, NOW).get('air_temp_f')).toMatchObject({
      sourceId: 'a',
      reason: 'pinned',
    });
  });

  it('breaks a priority tie by the newer observation, which is not a fall-through', () => {
    const older = source('alpha', 50, { air_temp_f: [70, NOW - 120] });
    const newer = source('beta', 50, { air_temp_f: [71, NOW - 5] });
    const selection = mergeFields([older, newer], NO_RULES, NOW).get('air_temp_f');
    expect(selection).toMatchObject({ sourceId: 'beta', value: 71 });
    // Nothing of higher priority went stale: it won on priority (tie broken by age).
    expect(selection?.reason).toBe('priority');
    // Order of the input does not matter.
    expect(mergeFields([newer, older], NO_RULES, NOW).get('air_temp_f')?.sourceId).toBe('beta');
  });

  it('breaks a full tie (same priority, same epoch) by source id, deterministically', () => {
    const a = source('a', 50, { air_temp_f: [70, NOW] });
    const b = source('b', 50, { air_temp_f: [71, NOW] });
    expect(mergeFields([b, a], NO_RULES, NOW).get('air_temp_f')?.sourceId).toBe('a');
    expect(mergeFields([a, b], NO_RULES, NOW).get('air_temp_f')?.sourceId).toBe('a');
  });

  it('treats a null value as not live, so the field falls through', () => {
    const station = source('station', 100, { air_temp_f: [null, NOW - 5] });
    const cloud = source('cloud', 50, { air_temp_f: [70, NOW - 60] });
    expect(mergeFields([station, cloud], NO_RULES, NOW).get('air_temp_f')).toMatchObject({
      sourceId: 'cloud',
      value: 70,
      reason: 'fallthrough',
    });
    expect(mergeFields([station], NO_RULES, NOW).has('air_temp_f')).toBe(false);
  });

  it('keeps a measured 0 live and exactly 0', () => {
    const station = source('station', 100, { rain_in_today: [0, NOW - 5], wind_avg_mph: [0, NOW - 5] });
    const cloud = source('cloud', 50, { rain_in_today: [0.4, NOW - 5], wind_avg_mph: [8, NOW - 5] });
    const selections = mergeFields([station, cloud], NO_RULES, NOW);
    expect(selections.get('rain_in_today')).toMatchObject({ sourceId: 'station', value: 0 });
    expect(selections.get('wind_avg_mph')).toMatchObject({ sourceId: 'station', value: 0 });
    expect(Object.is(selections.get('rain_in_today')?.value, 0)).toBe(true);
  });

  it('does not treat a reading from far in the future as live, but tolerates a little clock skew', () => {
    const future = source('station', 100, { air_temp_f: [99, NOW + 3600] });
    const cloud = source('cloud', 50, { air_temp_f: [70, NOW - 60] });
    expect(mergeFields([future, cloud], NO_RULES, NOW).get('air_temp_f')?.sourceId).toBe('cloud');
    expect(mergeFields([future], NO_RULES, NOW).has('air_temp_f')).toBe(false);
    const skewed = source('station', 100, { air_temp_f: [72, NOW + 60] });
    expect(mergeFields([skewed, cloud], NO_RULES, NOW).get('air_temp_f')?.sourceId).toBe('station');
  });

  it('leaves out a field no source has live, and non-finite values', () => {
    const selections = mergeFields(
      [
        source('station', 100, { air_temp_f: [72, NOW - AIR_MAX_AGE - 1], rh_pct: [Number.NaN, NOW] }),
        source('cloud', 50, { air_temp_f: [70, NOW - AIR_MAX_AGE - 100] }),
      ],
      NO_RULES,
      NOW,
    );
    expect(selections.has('air_temp_f')).toBe(false);
    expect(selections.has('rh_pct')).toBe(false);
    expect(selections.size).toBe(0);
    expect(mergeFields([], NO_RULES, NOW).size).toBe(0);
  });
});

describe('per-source live floor (minLiveS)', () => {
  // An hourly provider: its air temperature is 50 minutes old, past the field's 30 minute max age.
  const hourly: MergeSource = {
    ...source('hourly', 50, { air_temp_f: [70, NOW - 3000] }),
    minLiveS: 3600,
  };

  it('keeps the reading live on the priority path, with the floor as its max age', () => {
    expect(mergeFields([hourly], NO_RULES, NOW).get('air_temp_f')).toMatchObject({
      sourceId: 'hourly',
      maxAgeS: 3600,
      reason: 'priority',
    });
  });

  it('agrees across the pin, chain and priority paths', () => {
    const other = source('other', 10, { air_temp_f: [60, NOW - 10] });
    const pinned = mergeFields([hourly, other], { overrides: { air_temp_f: 'hourly' }, chains: {} }, NOW);
    const chained = mergeFields([hourly, other], { overrides: {}, chains: { air_temp_f: ['hourly'] } }, NOW);
    const byPriority = mergeFields([hourly, other], NO_RULES, NOW);
    expect(pinned.get('air_temp_f')?.sourceId).toBe('hourly');
    expect(chained.get('air_temp_f')?.sourceId).toBe('hourly');
    expect(byPriority.get('air_temp_f')?.sourceId).toBe('hourly');
  });

  it('is only a floor: past it the reading is stale', () => {
    const old = { ...hourly, readings: source('hourly', 50, { air_temp_f: [70, NOW - 3601] }).readings };
    expect(mergeFields([old], NO_RULES, NOW).has('air_temp_f')).toBe(false);
  });
});

describe('isLive', () => {
  it('needs a reading, a finite value and an age within the field max age', () => {
    expect(isLive(undefined, NOW)).toBe(false);
    expect(isLive({ field: 'air_temp_f', value: null, observedEpoch: NOW }, NOW)).toBe(false);
    expect(isLive({ field: 'air_temp_f', value: Infinity, observedEpoch: NOW }, NOW)).toBe(false);
    expect(isLive({ field: 'air_temp_f', value: 0, observedEpoch: NOW }, NOW)).toBe(true);
    expect(isLive({ field: 'rapid_wind_mph', value: 3, observedEpoch: NOW - 61 }, NOW)).toBe(false);
  });
});
