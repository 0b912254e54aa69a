import {
  currentWeatherSampleSchema,
  currentWeatherSchema,
  dailyDecisionSchema,
  historyWindowSchema,
  irrigationForecastSchema,
  irrigationSnapshotSchema,
  runRecordSchema,
  sevenDayVerdictSchema,
  skipCheckSchema,
  waterBudgetRowSchema,
  waterPlanDaySchema,
  waterPlanZoneSchema,
  zoneSchema,
  type HistoryWindow,
  type IrrigationSnapshot,
  type RunRecord,
  type SevenDayVerdict,
  type WaterBudgetRow,
  type WaterPlanDay,
  type Zone,
} from '../../server/src/irrigation/snapshot-schema';

/*
 * A complete snapshot written by hand against spec 2.5: two zones, seven water
 * plan days, seven day verdicts, a budget row per zone, two current weather
 * samples, one adoption record. Every failing case below is this snapshot with
 * one change.
 */

const DAY = 86_400;
const T0 = 1_752_969_600; // 2025-07-20T00:00:00Z
const REFRESH = T0 + 9 * 3600;

const zones: Zone[] = [
  {
    name: 'Front lawn',
    slug: 'front_lawn',
    running: false,
    running_known: true,
    running_observed_epoch: null,
    ledger_running: false,
    controller_id: 'os1',
    planned_run_seconds: 1200,
    bucket_mm: -14.2,
    throughput_mm_hr: 38.1,
    last_run_epoch: T0 - 3 * DAY + 5 * 3600,
    smart_suppressed: null,
    math: { bucket_mm: -14.2, kc: 0.8, cap_binding: false, heat_mult: 1, capture_eff: 0.7 },
    override: 'auto',
    hex: '',
    today_run_minutes: null,
  },
  {
    name: 'Back beds',
    slug: 'back_beds',
    running: false,
    running_known: false,
    running_observed_epoch: null,
    ledger_running: false,
    controller_id: null,
    planned_run_seconds: 0,
    bucket_mm: null,
    throughput_mm_hr: 12.7,
    last_run_epoch: 0,
    smart_suppressed: { weekdays: [0, 3], schedules: ['Vacation beds'], active_today: true },
    math: { bucket_mm: null, kc: 0.5, cap_binding: false },
    override: 'skip',
    hex: '',
    today_run_minutes: null,
  },
];

const waterPlan: WaterPlanDay[] = Array.from({ length: 7 }, (_, i) => ({
  date_local: `2025-07-${String(20 + i).padStart(2, '0')}`,
  day_offset: i,
  time_epoch: T0 + i * DAY,
  start_epoch: i === 3 ? null : T0 + i * DAY + 4 * 3600,
  finish_epoch: i === 3 ? null : T0 + i * DAY + 5 * 3600,
  forecast_rain_mm: i === 6 ? null : i * 0.5,
  expected_rain_mm: i === 6 ? null : i * 0.35,
  rain_probability_pct: i === 6 ? null : 10 * i,
  evidence_complete: i !== 6,
  zones: [
    {
      zone: 'front_lawn',
      name: 'Front lawn',
      reason: i === 0 ? 'Session 1 of 2' : 'Covered',
      reason_code: i === 0 ? 'session' : 'covered',
      water_need: i === 0 ? 'needs_water' : 'none',
      demand_source: 'et0',
      model: 'soil',
      planned_seconds: i === 0 ? 1200 : 0,
      depletion_mm: 14.2 + i,
      trigger_mm: 12.5,
      capacity_mm: 25,
      demand_mm: 4.1,
      session_capped: false,
      depletion_range_mm: i === 0 ? [12.9, 15.5] : null,
    },
    {
      zone: 'back_beds',
      name: 'Back beds',
      reason: 'Suppressed by a manual schedule',
      reason_code: 'smart_suppressed',
      water_need: 'unknown',
      demand_source: 'weekly_budget',
      model: 'weekly',
      planned_seconds: 0,
      depletion_mm: null,
      trigger_mm: null,
      capacity_mm: null,
      demand_mm: 0,
      session_capped: false,
      depletion_range_mm: null,
    },
  ],
}));

const sevenDayVerdicts: SevenDayVerdict[] = Array.from({ length: 7 }, (_, i) => ({
  day_offset: i,
  time_epoch: T0 + i * DAY,
  verdict: i === 2 ? 'skip' : 'run',
  reason: i === 2 ? 'Rain forecast' : '',
  temp_max_f: i === 5 ? null : 91 - i,
  temp_min_f: i === 5 ? null : 72 - i,
  precip_in: i === 6 ? null : i === 2 ? 0.4 : 0,
  precip_probability_max: i === 6 ? null : i === 2 ? 80 : 10,
  rain_evidence_incomplete: i === 6,
}));

const waterBudgets: WaterBudgetRow[] = [
  {
    zone_slug: 'front_lawn',
    today_seconds: 1200,
    today_reason: 'Session 1 of 2',
    session_capped: false,
    expected_rain_mm: 2.1,
    needed_mm: 12.7,
    mm_per_session: 6.35,
    remaining_sessions: 2,
    observed_rain_mm: 3,
    observed_rain_source: 'gauge',
    observed_rain_credited_mm: 3,
    rain_credit_cap_mm: 19,
    rain_cap_inferred: true,
    applied_mm: 9.5,
    forecast_credit_mm: 0,
    forecast_credit_source: 'none',
    bias_multiplier: 1,
    bias_sample_count: 4,
    scheduling_model: 'soil',
    soil_depletion_mm: 14.2,
    soil_taw_mm: 25,
    soil_raw_mm: 12.5,
    soil_due: true,
    soil_planned_seconds: 1200,
    soil_deferred_reason: '',
    soil_deferred_kind: null,
    soil_ceiling_binding: false,
    dormant: false,
    last_run_epoch: T0 - 3 * DAY + 5 * 3600,
    mode_active: true,
  },
  {
    zone_slug: 'back_beds',
    today_seconds: 0,
    today_reason: 'Forecast rain evidence incomplete',
    session_capped: false,
    expected_rain_mm: null,
    needed_mm: 8,
    mm_per_session: 8,
    remaining_sessions: 1,
    observed_rain_mm: 0,
    observed_rain_source: 'none',
    observed_rain_credited_mm: 0,
    rain_credit_cap_mm: 0,
    rain_cap_inferred: false,
    applied_mm: 0,
    forecast_credit_mm: 0,
    forecast_credit_source: 'unavailable',
    bias_multiplier: 1,
    bias_sample_count: 0,
    scheduling_model: '',
    soil_depletion_mm: null,
    soil_taw_mm: null,
    soil_raw_mm: null,
    soil_due: false,
    soil_planned_seconds: 0,
    soil_deferred_reason: 'Next-24-hour rain forecast unavailable',
    soil_deferred_kind: 'forecast_unavailable',
    soil_ceiling_binding: false,
    dormant: false,
    last_run_epoch: 0,
    mode_active: true,
  },
];

const validSnapshot: IrrigationSnapshot = {
  last_refresh_epoch: REFRESH,
  timezone: 'America/Chicago',
  restart_required: false,
  restart_reasons: [],
  next_run_epoch: T0 + DAY + 4 * 3600,
  next_run_state: 'at',
  next_run_day_offset: 1,
  next_run_total_minutes: 20,
  today_window: { start: T0 + 4 * 3600, finish: T0 + 5 * 3600, kind: 'pre_dawn', min_temp_f: 71.5 },
  restriction_allowed_days: [0, 3, 5],
  master_enable: true,
  water_level_pct: null,
  water_level_capable: false,
  station_last_seen_epoch: REFRESH - 60,
  forecast_last_seen_epoch: REFRESH - 900,
  zones,
  water_plan: waterPlan,
  skip_check: {
    is_paused: false,
    forecast_in: 0.02,
    rain_today_forecast_in: 0,
    rain_3day_weighted_in: 0.32,
    rain_7day_weighted_in: null,
    rain_next_4h_in: 0,
    rain_intensity_now_in_hr: 0,
    rain_tomorrow_prob_pct: 15,
    planning_forecast_unavailable: ['back_beds'],
    wind_window_max_mph: 6.2,
    run_window: 'pre_dawn',
    window_min_temp_f: 71.5,
    watered_days: ['2025-07-17'],
    soil_probe_configured: { front_lawn: false, back_beds: false },
    soil_probe_holds: {},
    script_hold: null,
    verdict: 'run',
    reason: '',
    reason_code: 'run',
  },
  forecast: {
    wind_max_today_mph: 12,
    temp_min_24h_f: 71,
    temp_max_3day_f: 94,
    humidity_now_pct: 68,
    heat_index_now_f: 88.4,
    heat_index_max_3day_f: 103.2,
    rain_today_om_in: 0,
    rain_tomorrow_in: 0.02,
    rain_3day_in: 0.45,
    rain_3day_weighted_in: 0.32,
    rain_7day_weighted_in: null,
    rain_next_4h_in: 0,
    rain_intensity_in_hr: null,
    eto_today_mm: 6.1,
    temp_max_today_f: 93,
    temp_min_today_f: 73,
    humidity_mean_today_pct: 61,
    rain_tomorrow_prob_pct: 15,
    heat_multiplier: 1,
  },
  seven_day_verdicts: sevenDayVerdicts,
  soil_forecasts: [{ zone_slug: 'front_lawn', status: 'uncalibrated', current_pct: 41 }],
  water_budgets: waterBudgets,
  zone_verdicts: [
    { zone_slug: 'front_lawn', verdict: 'run' },
    { zone_slug: 'back_beds', verdict: 'run' },
  ],
  pause_until_epoch: 0,
  override_tomorrow: 'none',
  global_override: 'auto',
  decision_trace: { verdict: 'run', reason: '', rules: [] },
  current_weather: {
    air_temp_f: {
      value: 84.2,
      source_id: 'tempest',
      observed_epoch: REFRESH - 60,
      max_age_s: 900,
      measured: true,
      selection_reason: 'highest priority live source',
    },
    rain_today_in: {
      value: 0,
      source_id: 'open_meteo',
      observed_epoch: REFRESH - 1800,
      max_age_s: 3600,
      measured: false,
      selection_reason: 'fallback: no live gauge',
    },
  },
  controls_persisted: true,
  flow_connected: false,
  flow: { rate_gpm: null, rate_source_id: null, total_gal_today: null, total_source_id: null },
  software_failsafe_controllers: [],
  ha_adoption: [
    {
      entity: 'input_number.irrigation_max_wind_mph',
      outcome: 'adopted',
      target: 'engine.skip_rules.max_wind_mph',
      adopted_value: '12',
      previous_value: '10',
      epoch: T0 - 30 * DAY,
    },
    {
      entity: 'input_number.irrigation_min_temp_f',
      outcome: 'adopted',
      target: 'engine.skip_rules.min_temp_f',
      adopted_value: '70',
      previous_value: '38',
      epoch: T0 - 30 * DAY,
      observed_value: '75',
    },
    {
      entity: 'input_boolean.irrigation_pause',
      outcome: 'not_found',
      target: 'controls.toggle.irrigation_pause',
      adopted_value: null,
      previous_value: 'off',
      epoch: T0 - 30 * DAY,
    },
  ],
  override_helpers_present: true,
  ha_reachable: true,
  iu_enabled: false,
  iu_suspended: false,
  ha_adoption_awaiting_config: false,
};

const runs: RunRecord[] = [
  {
    session_id: 's-1',
    zone: 'front_lawn',
    start_epoch: T0 - 3 * DAY + 4 * 3600,
    duration_s: 1200,
    skip_reason: null,
    source: 'ha_refresher',
    status: 'completed',
    controller_id: 'os1',
    applied_mm: 12.7,
    volume_gal: null,
    note: null,
    cycle_index: 1,
    cycle_count: 2,
  },
  {
    session_id: null,
    zone: 'front_lawn',
    start_epoch: T0 - 2 * DAY + 4 * 3600,
    duration_s: 0,
    skip_reason: 'Rain forecast',
    source: 'smart_morning',
    status: 'skipped',
    controller_id: null,
    applied_mm: null,
    volume_gal: null,
    note: null,
    cycle_index: null,
    cycle_count: null,
  },
  {
    session_id: 's-2',
    zone: 'back_beds',
    start_epoch: T0 - DAY + 18 * 3600,
    duration_s: 300,
    skip_reason: null,
    source: 'manual:owner',
    status: 'intended',
    controller_id: 'os1',
    applied_mm: null,
    volume_gal: 14.5,
    note: 'started from the dashboard',
    cycle_index: null,
    cycle_count: null,
  },
  {
    session_id: 's-3',
    zone: 'back_beds',
    start_epoch: T0 - DAY + 19 * 3600,
    duration_s: 120,
    skip_reason: null,
    source: 'dry_run:demo',
    status: 'aborted',
    controller_id: 'dry',
    applied_mm: null,
    volume_gal: null,
    note: null,
    cycle_index: null,
    cycle_count: null,
  },
];

const validHistory: HistoryWindow = {
  from_epoch: T0 - 30 * DAY,
  to_epoch: REFRESH,
  runs,
  daily: [
    {
      date_local: '2025-07-19',
      epoch: T0 - DAY + 4 * 3600,
      kind: 'morning',
      zones: [
        {
          zone: 'front_lawn',
          name: 'Front lawn',
          reason_code: 'covered',
          reason: 'Covered',
          water_need: 'none',
          planned_seconds: 0,
        },
        {
          zone: 'back_beds',
          name: 'Back beds',
          reason_code: 'session',
          reason: 'Session 1 of 1',
          water_need: 'needs_water',
          planned_seconds: 300,
        },
      ],
    },
  ],
};

// ---------------------------------------------------------------------------
// Helpers: copy the valid value and change one thing at a path
// ---------------------------------------------------------------------------

type Path = ReadonlyArray<string | number>;
const REMOVE = Symbol('remove');

function container(root: unknown, path: Path): Record<string | number, unknown> {
  let node = root;
  for (const key of path.slice(0, -1)) {
    node = (node as Record<string | number, unknown>)[key];
    if (typeof node !== 'object' || node === null) throw new Error(`no object at ${path.join('.')}`);
  }
  return node as Record<string | number, unknown>;
}

/** A deep copy of `value` with the key at `path` set to `next`, or removed. */
function changed<T>(value: T, path: Path, next: unknown): T {
  const copy = structuredClone(value);
  const parent = container(copy, path);
  const key = path[path.length - 1]!;
  if (!(key in parent)) throw new Error(`no key ${path.join('.')} in the example`);
  if (next === REMOVE) delete parent[key];
  else parent[key] = next;
  return copy;
}

function issuePaths(result: { success: boolean; error?: { issues: { path: PropertyKey[] }[] } }): string[] {
  return (result.error?.issues ?? []).map((issue) => issue.path.map(String).join('.'));
}

// ---------------------------------------------------------------------------
// The valid examples
// ---------------------------------------------------------------------------

describe('the hand-written example', () => {
  it('is a valid irrigation snapshot', () => {
    const result = irrigationSnapshotSchema.safeParse(validSnapshot);
    expect(issuePaths(result)).toEqual([]);
    expect(result.success).toBe(true);
    expect(validSnapshot.zones).toHaveLength(2);
    expect(validSnapshot.water_plan).toHaveLength(7);
  });

  it('keeps extra fields at every level through a parse (clients ignore them)', () => {
    const withExtra = structuredClone(validSnapshot);
    withExtra.units = 'imperial';
    withExtra.zones[0]!.photo_url = '/site/photos/front.jpg';
    const parsed = irrigationSnapshotSchema.parse(withExtra);
    expect(parsed.zones[0]?.photo_url).toBe('/site/photos/front.jpg');
    expect(parsed.units).toBe('imperial');
    expect(parsed.skip_check.verdict).toBe('run');
    expect(parsed.water_budgets[0]?.zone_slug).toBe('front_lawn');
    expect(parsed.zones[0]?.math.heat_mult).toBe(1);
  });

  it('is a valid history window with runs of every source form', () => {
    const result = historyWindowSchema.safeParse(validHistory);
    expect(issuePaths(result)).toEqual([]);
    expect(result.success).toBe(true);
  });

  it('accepts current_weather null and every next_run_state', () => {
    expect(
      irrigationSnapshotSchema.safeParse(changed(validSnapshot, ['current_weather'], null)).success,
    ).toBe(true);
    for (const state of ['at', 'no_water_planned', 'no_legal_day', 'no_sunrise', 'no_location']) {
      const snap = changed(validSnapshot, ['next_run_state'], state);
      expect(irrigationSnapshotSchema.safeParse(snap).success).toBe(true);
    }
  });

  it('accepts override_helpers_present false when controls_persisted is false', () => {
    const snap = changed(
      changed(validSnapshot, ['controls_persisted'], false),
      ['override_helpers_present'],
      false,
    );
    expect(irrigationSnapshotSchema.safeParse(snap).success).toBe(true);
  });

  it('accepts each record-level schema on its own', () => {
    expect(zoneSchema.safeParse(zones[1]).success).toBe(true);
    expect(waterBudgetRowSchema.safeParse(waterBudgets[1]).success).toBe(true);
    expect(waterPlanDaySchema.safeParse(waterPlan[6]).success).toBe(true);
    expect(waterPlanZoneSchema.safeParse(waterPlan[0]?.zones[0]).success).toBe(true);
    expect(skipCheckSchema.safeParse(validSnapshot.skip_check).success).toBe(true);
    expect(irrigationForecastSchema.safeParse(validSnapshot.forecast).success).toBe(true);
    expect(sevenDayVerdictSchema.safeParse(sevenDayVerdicts[6]).success).toBe(true);
    expect(currentWeatherSchema.safeParse(validSnapshot.current_weather).success).toBe(true);
    expect(runRecordSchema.safeParse(runs[2]).success).toBe(true);
    expect(dailyDecisionSchema.safeParse(validHistory.daily[0]).success).toBe(true);
  });

  it('accepts a script hold object in skip_check', () => {
    const snap = changed(validSnapshot, ['skip_check', 'script_hold'], {
      id: 'heat',
      name: 'Heat hold',
      reason: 'custom rule',
    });
    expect(irrigationSnapshotSchema.safeParse(snap).success).toBe(true);
  });
});

// ---------------------------------------------------------------------------
// One change each, all refused
// ---------------------------------------------------------------------------

describe('a missing required key is refused', () => {
  it.each<[string, Path]>([
    ['snapshot last_refresh_epoch', ['last_refresh_epoch']],
    ['snapshot zones', ['zones']],
    ['snapshot flow', ['flow']],
    ['zone running_known', ['zones', 0, 'running_known']],
    ['zone math.kc', ['zones', 0, 'math', 'kc']],
    ['water plan zone demand_mm', ['water_plan', 2, 'zones', 0, 'demand_mm']],
    ['water plan day evidence_complete', ['water_plan', 4, 'evidence_complete']],
    ['budget row observed_rain_source', ['water_budgets', 1, 'observed_rain_source']],
    ['skip_check planning_forecast_unavailable', ['skip_check', 'planning_forecast_unavailable']],
    ['seven_day_verdicts rain_evidence_incomplete', ['seven_day_verdicts', 0, 'rain_evidence_incomplete']],
    ['current weather sample selection_reason', ['current_weather', 'air_temp_f', 'selection_reason']],
    ['ha_adoption entity', ['ha_adoption', 0, 'entity']],
  ])('%s', (_name, path) => {
    const result = irrigationSnapshotSchema.safeParse(changed(validSnapshot, path, REMOVE));
    expect(result.success).toBe(false);
    expect(issuePaths(result)).toContain(path.join('.'));
  });

  it.each<[string, Path]>([
    ['run record skip_reason', ['runs', 0, 'skip_reason']],
    ['run record zone', ['runs', 1, 'zone']],
    ['daily decision zone planned_seconds', ['daily', 0, 'zones', 1, 'planned_seconds']],
    ['history daily', ['daily']],
  ])('history: %s', (_name, path) => {
    const result = historyWindowSchema.safeParse(changed(validHistory, path, REMOVE));
    expect(result.success).toBe(false);
    expect(issuePaths(result)).toContain(path.join('.'));
  });
});

describe('a value outside its enumeration is refused', () => {
  it.each<[Path, unknown]>([
    [['next_run_state'], 'later'],
    [['today_window', 'kind'], 'midday'],
    [['override_tomorrow'], 'auto'],
    [['water_budgets', 0, 'observed_rain_source'], 'station'],
    [['water_budgets', 0, 'forecast_credit_source'], 'forecast'],
    [['water_budgets', 0, 'scheduling_model'], 'hybrid'],
    [['water_budgets', 0, 'soil_deferred_kind'], ''],
    [['ha_adoption', 0, 'outcome'], 'migrated'],
    [['skip_check', 'run_window'], 'evening'],
  ])('%j = %j', (path, value) => {
    const result = irrigationSnapshotSchema.safeParse(changed(validSnapshot, path, value));
    expect(result.success).toBe(false);
    expect(issuePaths(result)).toContain(path.join('.'));
  });

  it('run record status', () => {
    const result = historyWindowSchema.safeParse(changed(validHistory, ['runs', 0, 'status'], 'done'));
    expect(issuePaths(result)).toEqual(['runs.0.status']);
  });
});

describe('depletion_range_mm is exactly two numbers or null', () => {
  it.each<[string, unknown]>([
    ['three numbers', [1, 2, 3]],
    ['one number', [1]],
    ['no numbers', []],
    ['a string inside', [1, '2']],
  ])('%s is refused', (_name, value) => {
    const path: Path = ['water_plan', 0, 'zones', 0, 'depletion_range_mm'];
    const result = irrigationSnapshotSchema.safeParse(changed(validSnapshot, path, value));
    expect(result.success).toBe(false);
    expect(issuePaths(result).some((p) => p.startsWith(path.join('.')))).toBe(true);
  });
});

describe('a deprecated field holding anything but its fixed value is refused (spec 9.6)', () => {
  it.each<[Path, unknown]>([
    [['iu_enabled'], true],
    [['iu_suspended'], true],
    [['ha_adoption_awaiting_config'], true],
    [['zones', 1, 'hex'], 'a1b2c3'],
    [['zones', 0, 'today_run_minutes'], 0],
    [['water_budgets', 1, 'mode_active'], false],
    [['override_helpers_present'], false],
  ])('%j = %j', (path, value) => {
    const result = irrigationSnapshotSchema.safeParse(changed(validSnapshot, path, value));
    expect(result.success).toBe(false);
    expect(issuePaths(result)).toEqual([path.join('.')]);
  });

  it('refuses a deprecated field that is missing', () => {
    const result = irrigationSnapshotSchema.safeParse(changed(validSnapshot, ['zones', 0, 'hex'], REMOVE));
    expect(issuePaths(result)).toEqual(['zones.0.hex']);
  });
});

describe('a nullable field must be present (T|null is not optional)', () => {
  it.each<[Path]>([
    [['water_level_pct']],
    [['decision_trace']],
    [['current_weather']],
    [['zones', 0, 'bucket_mm']],
    [['zones', 0, 'running_observed_epoch']],
    [['zones', 1, 'smart_suppressed']],
    [['water_plan', 3, 'start_epoch']],
    [['water_plan', 6, 'rain_probability_pct']],
    [['water_plan', 1, 'zones', 1, 'depletion_range_mm']],
    [['water_budgets', 1, 'expected_rain_mm']],
    [['skip_check', 'forecast_in']],
    [['skip_check', 'script_hold']],
    [['forecast', 'eto_today_mm']],
    [['seven_day_verdicts', 5, 'temp_max_f']],
    [['flow', 'rate_gpm']],
    [['ha_adoption', 2, 'adopted_value']],
  ])('%j', (path) => {
    const result = irrigationSnapshotSchema.safeParse(changed(validSnapshot, path, REMOVE));
    expect(result.success).toBe(false);
    expect(issuePaths(result)).toContain(path.join('.'));
  });

  it.each<[Path]>([[['runs', 1, 'session_id']], [['runs', 0, 'volume_gal']], [['runs', 2, 'cycle_count']]])(
    'history %j',
    (path) => {
      const result = historyWindowSchema.safeParse(changed(validHistory, path, REMOVE));
      expect(issuePaths(result)).toEqual([path.join('.')]);
    },
  );

  it('the one optional field, ha_adoption[].observed_value, may be absent', () => {
    expect('observed_value' in (validSnapshot.ha_adoption[0] ?? {})).toBe(false);
    expect(irrigationSnapshotSchema.safeParse(validSnapshot).success).toBe(true);
  });
});

describe('a non-integer where the spec says integer is refused', () => {
  it.each<[Path, number]>([
    [['last_refresh_epoch'], REFRESH + 0.5],
    [['next_run_epoch'], 1.5],
    [['pause_until_epoch'], 0.1],
    [['next_run_total_minutes'], 20.5],
    [['zones', 0, 'planned_run_seconds'], 1200.5],
    [['zones', 0, 'last_run_epoch'], 2.25],
    [['water_plan', 0, 'time_epoch'], T0 + 0.5],
    [['water_plan', 0, 'zones', 0, 'planned_seconds'], 0.5],
    [['water_budgets', 0, 'today_seconds'], 1199.9],
    [['water_budgets', 0, 'remaining_sessions'], 1.5],
    [['current_weather', 'air_temp_f', 'observed_epoch'], REFRESH - 60.5],
    [['current_weather', 'air_temp_f', 'max_age_s'], 899.5],
    [['ha_adoption', 0, 'epoch'], 7.7],
  ])('%j = %d', (path, value) => {
    const result = irrigationSnapshotSchema.safeParse(changed(validSnapshot, path, value));
    expect(issuePaths(result)).toEqual([path.join('.')]);
  });

  it.each<[Path, number]>([
    [['runs', 0, 'start_epoch'], 1.5],
    [['runs', 0, 'duration_s'], 1200.5],
    [['runs', 0, 'cycle_index'], 0.5],
    [['daily', 0, 'epoch'], 3.5],
    [['from_epoch'], 0.5],
  ])('history %j = %d', (path, value) => {
    const result = historyWindowSchema.safeParse(changed(validHistory, path, value));
    expect(issuePaths(result)).toEqual([path.join('.')]);
  });
});

describe('run record source', () => {
  const record = runs[0]!;

  it.each(['ha_refresher', 'manual', 'manual:owner', 'dry_run', 'dry_run:front_lawn', 'smart_morning'])(
    'accepts %s',
    (source) => {
      expect(runRecordSchema.safeParse({ ...record, source }).success).toBe(true);
    },
  );

  it.each([
    'manual:',
    'dry_run:',
    'manual: ',
    'manual:a b',
    'manual_x',
    'smart_morning:1',
    '',
    'HA_REFRESHER',
  ])('refuses %j', (source) => {
    const result = runRecordSchema.safeParse({ ...record, source });
    expect(issuePaths(result)).toEqual(['source']);
  });
});

describe('current weather sample (spec 2.3)', () => {
  it('refuses a non-boolean measured flag and a non-number value', () => {
    const sample = validSnapshot.current_weather?.air_temp_f;
    expect(currentWeatherSampleSchema.safeParse({ ...sample, measured: 'yes' }).success).toBe(false);
    expect(currentWeatherSampleSchema.safeParse({ ...sample, value: null }).success).toBe(false);
  });
});
