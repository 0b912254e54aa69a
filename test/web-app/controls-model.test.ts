import {
  checkThreshold,
  fromLocalInput,
  fromManifest,
  fromSnapshot,
  mergeViews,
  planThresholds,
  THRESHOLDS,
  toLocalInput,
} from '../../web/app/pages/settings/controls-model';

const manifest = {
  schema_version: '1.6',
  entities: [
    { key: 'pause', platform: 'switch', state: 'ON' },
    { key: 'pause_until', platform: 'sensor', state: '2026-11-23T02:13:20.000Z' },
    { key: 'global_override', platform: 'select', state: 'auto' },
    { key: 'override_tomorrow', platform: 'select', state: 'skip' },
    { key: 'threshold_max_wind_mph', platform: 'number', min: 0, max: 50, state: '12' },
    { key: 'threshold_min_temp_f', platform: 'number', min: 20, max: 70, state: '38' },
    { key: 'threshold_rain_skip_in', platform: 'number', min: 0, max: 10, state: null },
    { key: 'zone_front_lawn_override', platform: 'select', state: 'run' },
  ],
};

const snapshot = {
  pause_until_epoch: 0,
  override_tomorrow: 'none',
  skip_check: {
    is_paused: false,
    rules: [
      { rule: 'freeze', inputs: { min_temp_f: 64.6, min_temp_threshold_f: 38 } },
      { rule: 'wind_now', inputs: { wind_mph: 1.3, max_wind_mph: 10 } },
      { rule: 'rain_today_forecast', inputs: { rain_today_forecast_in: 0.5, rain_skip_in: 0.25 } },
    ],
  },
};

describe('current controls', () => {
  it('reads the manifest states', () => {
    const view = fromManifest(manifest);
    expect(view.thresholds).toEqual({ max_wind_mph: 12, min_temp_f: 38, rain_skip_in: null });
    expect(view.paused).toBe(true);
    expect(view.pauseUntilEpoch).toBe(Date.parse('2026-11-23T02:13:20.000Z') / 1000);
    expect(view.globalOverride).toBe('auto');
    expect(view.overrideTomorrow).toBe('skip');
  });

  it('reads the thresholds the skip rules used from the snapshot (the rule value, not the reading)', () => {
    const view = fromSnapshot(snapshot);
    expect(view.thresholds).toEqual({ max_wind_mph: 10, min_temp_f: 38, rain_skip_in: 0.25 });
    expect(view.paused).toBe(false);
    expect(view.pauseUntilEpoch).toBe(0);
    expect(view.globalOverride).toBeNull();
    expect(fromSnapshot({ ...snapshot, global_override: 'skip' }).globalOverride).toBe('skip');
  });

  it('prefers the manifest and fills its gaps from the snapshot', () => {
    const view = mergeViews(fromManifest(manifest), fromSnapshot(snapshot));
    expect(view.thresholds).toEqual({ max_wind_mph: 12, min_temp_f: 38, rain_skip_in: 0.25 });
    expect(view.overrideTomorrow).toBe('skip');
    expect(mergeViews(fromManifest(null), fromSnapshot(null)).thresholds.max_wind_mph).toBeNull();
  });

  it('reads a cleared pause-until as no timed pause', () => {
    const view = fromManifest({
      entities: [
        { key: 'pause_until', state: null },
        { key: 'pause', state: 'OFF' },
      ],
    });
    expect(view.pauseUntilEpoch).toBe(0);
    expect(view.paused).toBe(false);
  });
});

describe('threshold saves', () => {
  const wind = THRESHOLDS.find((t) => t.key === 'max_wind_mph');
  if (!wind) throw new Error('max_wind_mph missing');

  it('carries the server ranges and labels', () => {
    expect(THRESHOLDS.map((t) => [t.label, t.min, t.max])).toEqual([
      ['Max wind (mph)', 0, 50],
      ['Min temperature (°F)', 20, 70],
      ['Rain skip (in)', 0, 10],
    ]);
  });

  it('checks a value against its range', () => {
    expect(checkThreshold(wind, '12.5')).toEqual({ ok: true, value: 12.5 });
    expect(checkThreshold(wind, '51')).toEqual({ ok: false, message: 'Must be between 0 and 50 mph.' });
    expect(checkThreshold(wind, '')).toEqual({ ok: false, message: 'Enter a number.' });
  });

  it('sends one set_threshold per changed value and nothing for unchanged ones', () => {
    const current = { max_wind_mph: 10, min_temp_f: 38, rain_skip_in: 0.25 };
    expect(planThresholds(current, {})).toEqual({ actions: [], errors: {} });
    expect(planThresholds(current, { max_wind_mph: '10', min_temp_f: '40', rain_skip_in: '0.3' })).toEqual({
      actions: [
        { kind: 'set_threshold', key: 'min_temp_f', value: 40 },
        { kind: 'set_threshold', key: 'rain_skip_in', value: 0.3 },
      ],
      errors: {},
    });
  });

  it('sends nothing at all while any value is out of range', () => {
    const plan = planThresholds(
      { max_wind_mph: 10, min_temp_f: 38, rain_skip_in: 0.25 },
      {
        max_wind_mph: '15',
        min_temp_f: '10',
      },
    );
    expect(plan.actions).toEqual([]);
    expect(plan.errors).toEqual({ min_temp_f: 'Must be between 20 and 70 °F.' });
  });

  it('sends a value whose current value is unknown', () => {
    expect(
      planThresholds({ max_wind_mph: null, min_temp_f: null, rain_skip_in: null }, { rain_skip_in: '0.25' })
        .actions,
    ).toEqual([{ kind: 'set_threshold', key: 'rain_skip_in', value: 0.25 }]);
  });
});

describe('datetime-local values', () => {
  it('round-trips an epoch through the input format in the local zone', () => {
    const epoch = 1_795_400_000 - (1_795_400_000 % 60);
    const text = toLocalInput(epoch);
    expect(text).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/);
    expect(fromLocalInput(text)).toBe(epoch);
    expect(fromLocalInput('2026-11-22T06:00:30')).toBe(new Date(2026, 10, 22, 6, 0, 30).getTime() / 1000);
    expect(fromLocalInput('tomorrow')).toBeNull();
    expect(fromLocalInput('')).toBeNull();
  });

  it("reads and writes the yard's clock, whatever the browser's zone", () => {
    // 2026-11-22 06:00 in New York (EST, UTC-5) is 11:00 UTC.
    const epoch = Date.UTC(2026, 10, 22, 11, 0) / 1000;
    expect(toLocalInput(epoch, 'America/New_York')).toBe('2026-11-22T06:00');
    expect(toLocalInput(epoch, 'Asia/Tokyo')).toBe('2026-11-22T20:00');
    expect(fromLocalInput('2026-11-22T06:00', 'America/New_York')).toBe(epoch);
    // Summer time: 2026-07-01 06:00 EDT (UTC-4) is 10:00 UTC.
    expect(fromLocalInput('2026-07-01T06:00', 'America/New_York')).toBe(Date.UTC(2026, 6, 1, 10, 0) / 1000);
  });
});
