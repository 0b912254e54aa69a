import {
  decideVerdict,
  evaluateSkipCheck,
  irrigationForecastSlice,
  pausedRule,
  rainNext4hRule,
  sevenDayVerdicts,
  windNowRule,
  heatAdvisoryRule,
  type SkipCheck,
} from '../../../server/src/irrigation/skip';
import {
  HOUR,
  NOW,
  TODAY,
  TZ,
  clearInput,
  dateAt,
  day,
  days,
  dryPast,
  emptyWeather,
  hours,
  local,
  patchDays,
  patchHours,
  stationWeather,
} from './fixtures';

const SKIP_CHECK_FIELDS = [
  'is_paused',
  'forecast_in',
  'rain_today_forecast_in',
  'rain_3day_weighted_in',
  'rain_7day_weighted_in',
  'rain_next_4h_in',
  'rain_intensity_now_in_hr',
  'rain_tomorrow_prob_pct',
  'planning_forecast_unavailable',
  'wind_window_max_mph',
  'run_window',
  'window_min_temp_f',
  'watered_days',
  'soil_probe_configured',
  'soil_probe_holds',
  'script_hold',
];

const FORECAST_FIELDS = [
  'wind_max_today_mph',
  'temp_min_24h_f',
  'temp_max_3day_f',
  'humidity_now_pct',
  'heat_index_now_f',
  'heat_index_max_3day_f',
  'rain_today_om_in',
  'rain_tomorrow_in',
  'rain_3day_in',
  'rain_3day_weighted_in',
  'rain_7day_weighted_in',
  'rain_next_4h_in',
  'rain_intensity_in_hr',
  'eto_today_mm',
  'temp_max_today_f',
  'temp_min_today_f',
  'humidity_mean_today_pct',
  'rain_tomorrow_prob_pct',
];

function rule(check: SkipCheck, id: string) {
  const r = check.rules.find((x) => x.rule === id);
  if (!r) throw new Error(`no rule ${id}`);
  return r;
}

/** The hour starting at a local wall-clock time today. */
const at = (hhmm: string) => local(`${TODAY}T${hhmm}:00`);

describe('evaluateSkipCheck on a clear morning', () => {
  const check = evaluateSkipCheck(clearInput());

  it('waters, with every rule evaluated', () => {
    expect(check.verdict).toBe('water');
    expect(check.reason_code).toBe('water');
    expect(check.run_multiplier).toBe(1);
    expect(check.rules).toHaveLength(12);
    expect(check.rules.filter((r) => r.verdict !== 'pass')).toEqual([]);
  });

  it('carries every named skip_check field', () => {
    for (const key of SKIP_CHECK_FIELDS) expect(check).toHaveProperty(key);
    expect(check).toMatchObject({
      is_paused: false,
      forecast_in: 0,
      rain_today_forecast_in: 0,
      rain_3day_weighted_in: 0,
      rain_7day_weighted_in: 0,
      rain_next_4h_in: 0,
      rain_intensity_now_in_hr: 0,
      rain_tomorrow_prob_pct: 10,
      planning_forecast_unavailable: [],
      wind_window_max_mph: null,
      run_window: null,
      window_min_temp_f: null,
      watered_days: [],
      soil_probe_configured: {},
      soil_probe_holds: {},
      script_hold: null,
      rain_today_in: 0,
      rain_today_source: 'gauge',
      rain_intensity_now_source: 'station',
      days_since_significant_rain: null,
      unknown_policy: 'hold',
    });
  });

  it('passes the zone maps and watered days through', () => {
    const c = evaluateSkipCheck(
      clearInput({
        watered_days: [dateAt(-2)],
        soil_probe_configured: { front_lawn: true },
        soil_probe_holds: { front_lawn: 'probe offline' },
      }),
    );
    expect(c.watered_days).toEqual([dateAt(-2)]);
    expect(c.soil_probe_configured).toEqual({ front_lawn: true });
    expect(c.soil_probe_holds).toEqual({ front_lawn: 'probe offline' });
  });
});

describe('honesty: missing evidence is null and unknown, never 0 and never a pass', () => {
  const check = evaluateSkipCheck(clearInput({ weather: null, hourly: [], daily: [], past_rain: [] }));

  it('publishes nulls, not zeros', () => {
    for (const key of [
      'forecast_in',
      'rain_today_forecast_in',
      'rain_3day_weighted_in',
      'rain_7day_weighted_in',
      'rain_next_4h_in',
      'rain_intensity_now_in_hr',
      'rain_tomorrow_prob_pct',
      'rain_today_in',
      'temp_now_f',
      'wind_now_mph',
      'humidity_now_pct',
    ] as const) {
      expect({ key, value: check[key] }).toEqual({ key, value: null });
    }
    expect(check.planning_forecast_unavailable).toEqual(['front_lawn', 'back_beds']);
  });

  it('holds watering: every measured rule and freeze is unknown; without a forecast the forward rules do not apply', () => {
    expect(check.verdict).toBe('unknown');
    expect(check.reason_code).toBe('rain_now_unknown');
    expect(check.reason).toMatch(/^Watering held/);
    const unknown = check.rules.filter((r) => r.verdict === 'unknown').map((r) => r.reason_code);
    expect(unknown).toEqual([
      'rain_now_unknown',
      'freeze_unknown',
      'wind_now_unknown',
      'already_wet_unknown',
      'heat_advisory_unknown',
    ]);
    const notApplicable = check.rules.filter((r) => r.reason_code.endsWith('_no_forecast'));
    expect(notApplicable.map((r) => r.rule)).toEqual([
      'wind_forecast',
      'rain_today_forecast',
      'rain_next_4h',
      'tomorrow_rain',
      'rain_3day',
    ]);
    expect(notApplicable.every((r) => r.verdict === 'pass' && /does not apply/.test(r.reason))).toBe(true);
  });

  const irrigationForecast = irrigationForecastSlice(clearInput({ weather: null, hourly: [], daily: [] }));
  it('the forecast slice is all null', () => {
    for (const key of FORECAST_FIELDS) {
      expect({ key, value: irrigationForecast[key as keyof typeof irrigationForecast] }).toEqual({
        key,
        value: null,
      });
    }
  });
});

describe('a gap in hourly precipitation', () => {
  const gap = patchHours(hours(), { [at('12:00')]: { precip_in: null } });

  it('makes the next-4h total null, its rule unknown, and holds watering', () => {
    const check = evaluateSkipCheck(clearInput({ hourly: gap }));
    expect(check.rain_next_4h_in).toBeNull();
    expect(rule(check, 'rain_next_4h')).toMatchObject({
      verdict: 'unknown',
      reason_code: 'rain_next_4h_unknown',
      inputs: { rain_next_4h_in: null, rain_next_4h_in_reported: 4, rain_next_4h_in_expected: 5 },
    });
    expect(check.verdict).toBe('unknown');
    expect(check.reason_code).toBe('rain_next_4h_unknown');
  });

  it('marks the next 24 hours incomplete for every automatic zone', () => {
    expect(evaluateSkipCheck(clearInput({ hourly: gap })).planning_forecast_unavailable).toEqual([
      'front_lawn',
      'back_beds',
    ]);
    const later = patchHours(hours(), { [NOW + 30 * HOUR - 1800]: { precip_in: null } });
    expect(evaluateSkipCheck(clearInput({ hourly: later })).planning_forecast_unavailable).toEqual([]);
  });

  it('still proves a wet window when the reported hours already reach the threshold', () => {
    const wet = patchHours(gap, { [at('11:00')]: { precip_in: 0.15 } });
    const check = evaluateSkipCheck(clearInput({ hourly: wet }));
    expect(check.rain_next_4h_in).toBeNull();
    expect(check.verdict).toBe('skip');
    expect(check.reason_code).toBe('rain_next_4h');
    expect(check.reason).toContain('at least 0.15 in (4 of 5 hours reported)');
  });

  it('a missing hour (no entry at all) is a gap too', () => {
    const missing = patchHours(hours(), { [at('13:00')]: null });
    expect(evaluateSkipCheck(clearInput({ hourly: missing })).rain_next_4h_in).toBeNull();
  });
});

describe('overall verdict precedence', () => {
  const skip = pausedRule({ pause_until_epoch: NOW + 60, at_epoch: NOW, timezone: TZ });
  const unknown = rainNext4hRule({ rain_next_4h_in: null });
  const pass = windNowRule({ wind_mph: 3, source: 'station' });
  const heat = heatAdvisoryRule({
    temp_max_3day_f: 99,
    humidity_pct: 70,
    days_since_significant_rain: 4,
    rain_3day_weighted_in: 0,
  });

  it('a proven skip beats an unknown, whatever the order', () => {
    expect(decideVerdict([unknown, skip, pass])).toMatchObject({ verdict: 'skip', reason_code: 'paused' });
  });

  it('the first skip in rule order decides', () => {
    const windy = windNowRule({ wind_mph: 20, source: 'station' });
    expect(decideVerdict([skip, windy]).reason_code).toBe('paused');
    expect(decideVerdict([windy, skip]).reason_code).toBe('wind_now');
  });

  it('an unknown rule that could skip holds watering under the default policy', () => {
    expect(decideVerdict([pass, unknown, heat])).toMatchObject({
      verdict: 'unknown',
      reason_code: 'rain_next_4h_unknown',
      run_multiplier: 1,
    });
  });

  it('the opt-in water policy waters, flagged as unverified', () => {
    expect(decideVerdict([pass, unknown], 'water')).toMatchObject({
      verdict: 'water',
      reason_code: 'water_unverified',
    });
  });

  it('the heat advisory adds water only when nothing skips or holds', () => {
    expect(decideVerdict([pass, heat])).toMatchObject({
      verdict: 'water',
      reason_code: 'heat_advisory',
      run_multiplier: 1.15,
    });
    expect(decideVerdict([skip, heat])).toMatchObject({ verdict: 'skip', run_multiplier: 1 });
  });

  it('an unknown heat advisory never holds watering', () => {
    const unknownHeat = heatAdvisoryRule({
      temp_max_3day_f: null,
      humidity_pct: 70,
      days_since_significant_rain: 4,
      rain_3day_weighted_in: 0,
    });
    expect(decideVerdict([pass, unknownHeat])).toMatchObject({ verdict: 'water', reason_code: 'water' });
  });

  it('in a full check: paused and raining reports the pause', () => {
    const check = evaluateSkipCheck(
      clearInput({ pause_until_epoch: NOW + 3600, weather: stationWeather({ rain_intensity_in_hr: 0.3 }) }),
    );
    expect(check).toMatchObject({ is_paused: true, verdict: 'skip', reason_code: 'paused' });
    expect(rule(check, 'rain_now').verdict).toBe('skip');
  });
});

describe('live readings and their stand-ins', () => {
  it('without a station, the forecast hour stands in for rain rate, wind, temperature and humidity', () => {
    const list = patchHours(hours(), {
      [at('10:00')]: { precip_in: 0.02, wind_mph: 7, temp_f: 66, humidity_pct: 61 },
    });
    const check = evaluateSkipCheck(clearInput({ weather: emptyWeather(), hourly: list }));
    expect(check).toMatchObject({
      rain_intensity_now_in_hr: 0.02,
      rain_intensity_now_source: 'forecast',
      wind_now_mph: 7,
      temp_now_f: 66,
      humidity_now_pct: 61,
      rain_today_source: 'model',
      rain_today_in: 0.02,
      verdict: 'skip',
      reason_code: 'rain_now',
    });
    expect(check.reason).toContain("forecast's estimate for this hour");
  });

  it("already wet from the gauge's measured total", () => {
    const check = evaluateSkipCheck(clearInput({ weather: stationWeather({ rain_in_today: 0.06 }) }));
    expect(check).toMatchObject({ verdict: 'skip', reason_code: 'already_wet', rain_today_in: 0.06 });
    expect(check.reason).toBe(
      'Already wet: 0.06 in of rain today (measured by the gauge), at or above 0.05 in.',
    );
  });

  it('never calls a modelled live total (a demo replay) measured: the words follow current_weather', () => {
    const weather = stationWeather({ rain_in_today: 0.06 });
    const modelled = evaluateSkipCheck(clearInput({ weather, unmeasured_fields: ['rain_in_today'] }));
    expect(modelled.reason).toBe(
      'Already wet: 0.06 in of rain today (reported live by a modelled source, not measured), at or above 0.05 in.',
    );
    expect(modelled.reason).not.toContain('measured by');
    const wind = evaluateSkipCheck(
      clearInput({ weather: stationWeather({ wind_avg_mph: 14 }), unmeasured_fields: ['wind_avg_mph'] }),
    );
    expect(wind.reason).toContain('(reported live by a modelled source, not measured)');
    expect(wind.reason).not.toContain('(station)');
  });

  it("a gauge total from before midnight is yesterday's: today's model hours decide", () => {
    const weather = stationWeather({ rain_in_today: 0.8, rain_live_epoch: local(`${dateAt(-1)}T23:58:00`) });
    const check = evaluateSkipCheck(clearInput({ weather }));
    expect(check).toMatchObject({ rain_today_in: 0, rain_today_source: 'model', verdict: 'water' });
  });
});

describe('run window', () => {
  const window = { start_epoch: at('05:00'), finish_epoch: at('06:30'), kind: 'pre_dawn' as const };

  it('judges wind and freeze over the window hours and publishes them', () => {
    const list = patchHours(hours(), {
      [at('05:00')]: { wind_mph: 9, temp_f: 41 },
      [at('06:00')]: { wind_mph: 12, temp_f: 39 },
    });
    const check = evaluateSkipCheck(clearInput({ hourly: list, run_window: window }));
    expect(check).toMatchObject({
      run_window: 'pre_dawn',
      wind_window_max_mph: 12,
      window_min_temp_f: 39,
      verdict: 'water',
    });
  });

  it('skips for wind above the limit plus slack in the window', () => {
    const list = patchHours(hours(), { [at('06:00')]: { wind_mph: 15.5 } });
    const check = evaluateSkipCheck(clearInput({ hourly: list, run_window: window }));
    expect(check).toMatchObject({ verdict: 'skip', reason_code: 'wind_forecast', wind_window_max_mph: 15.5 });
  });

  it('skips for a window low at the minimum temperature', () => {
    const list = patchHours(hours(), { [at('05:00')]: { temp_f: 38 } });
    const check = evaluateSkipCheck(clearInput({ hourly: list, run_window: window }));
    expect(check).toMatchObject({ verdict: 'skip', reason_code: 'freeze', window_min_temp_f: 38 });
  });

  it('a window hour without a temperature is unknown unless the day low rules out a freeze', () => {
    const list = patchHours(hours(), { [at('06:00')]: { temp_f: null } });
    const check = evaluateSkipCheck(clearInput({ hourly: list, run_window: window }));
    expect(check.window_min_temp_f).toBeNull();
    // The day's own low (60 F) bounds the window's low from below: no freeze is possible.
    expect(rule(check, 'freeze').verdict).toBe('pass');
    const coldDay = evaluateSkipCheck(
      clearInput({ hourly: list, run_window: window, daily: patchDays(days(), { 0: { temp_min_f: 30 } }) }),
    );
    expect(rule(coldDay, 'freeze').reason_code).toBe('freeze_unknown');
  });

  it('rejects an inverted window', () => {
    expect(() =>
      evaluateSkipCheck(clearInput({ run_window: { ...window, finish_epoch: window.start_epoch } })),
    ).toThrow(RangeError);
  });
});

describe('soil frost in the full check', () => {
  it('skips on a configured probe at the frost threshold; no probe does not hold', () => {
    expect(evaluateSkipCheck(clearInput({ soil_temp_probe: { temp_f: 35 } })).reason_code).toBe('soil_frost');
    expect(evaluateSkipCheck(clearInput({ soil_temp_probe: { temp_f: null } })).reason_code).toBe(
      'soil_frost_unknown',
    );
    expect(evaluateSkipCheck(clearInput({ soil_temp_probe: null })).verdict).toBe('water');
  });
});

describe('heat advisory in the full check', () => {
  const hot = (values: Parameters<typeof clearInput>[0] = {}) =>
    clearInput({
      weather: stationWeather({ air_temp_f: 93, rh_pct: 65 }),
      daily: patchDays(days(), { 1: { temp_max_f: 98 } }),
      ...values,
    });

  it('waters at 115% when it is hot, humid, dry for days and no rain is coming', () => {
    const check = evaluateSkipCheck(hot());
    expect(check).toMatchObject({
      verdict: 'water',
      reason_code: 'heat_advisory',
      run_multiplier: 1.15,
      days_since_significant_rain: null,
    });
    expect(rule(check, 'heat_advisory').inputs).toMatchObject({
      temp_max_3day_f: 98,
      humidity_pct: 65,
      days_since_significant_rain_at_least: 6,
    });
  });

  it('rain yesterday ends the dry spell', () => {
    const check = evaluateSkipCheck(
      hot({ past_rain: [{ date_local: dateAt(-1), rain_in: 0.4 }, ...dryPast().slice(1)] }),
    );
    expect(check).toMatchObject({ verdict: 'water', reason_code: 'water', days_since_significant_rain: 1 });
  });

  it('without past rain evidence the dry spell is unproven: no extension, and no hold', () => {
    const check = evaluateSkipCheck(hot({ past_rain: [] }));
    expect(rule(check, 'heat_advisory').reason_code).toBe('heat_advisory_unknown');
    expect(check).toMatchObject({ verdict: 'water', reason_code: 'water', run_multiplier: 1 });
  });
});

describe('irrigationForecastSlice', () => {
  it('carries every named field from the same evidence', () => {
    const daily = patchDays(days(), {
      0: { precip_sum_in: 0.02, wind_max_mph: 11, temp_max_f: 84, temp_min_f: 61, humidity_mean_pct: 57 },
      1: { precip_sum_in: 0.3, precip_probability_max: 60, temp_max_f: 90 },
      2: { precip_sum_in: 0.1, precip_probability_max: 50 },
      3: { precip_sum_in: 0, precip_probability_max: 0 },
    });
    const f = irrigationForecastSlice(clearInput({ daily }));
    expect(Object.keys(f).sort()).toEqual([...FORECAST_FIELDS].sort());
    expect(f).toEqual({
      wind_max_today_mph: 11,
      temp_min_24h_f: 70,
      temp_max_3day_f: 90,
      humidity_now_pct: 55,
      heat_index_now_f: expect.any(Number),
      heat_index_max_3day_f: expect.any(Number),
      rain_today_om_in: 0.02,
      rain_tomorrow_in: 0.3,
      rain_3day_in: 0.4,
      rain_3day_weighted_in: 0.23,
      rain_7day_weighted_in: 0.23,
      rain_next_4h_in: 0,
      rain_intensity_in_hr: 0,
      eto_today_mm: 5.08,
      temp_max_today_f: 84,
      temp_min_today_f: 61,
      humidity_mean_today_pct: 57,
      rain_tomorrow_prob_pct: 60,
    });
  });

  it('the 7-day weighted total needs all 7 days after today', () => {
    expect(irrigationForecastSlice(clearInput({ daily: days(7) })).rain_7day_weighted_in).toBeNull();
    expect(irrigationForecastSlice(clearInput({ daily: days(8) })).rain_7day_weighted_in).toBe(0);
  });

  it('a zero ET0 counts only when the provider reported it', () => {
    const reported = patchDays(days(), { 0: { et0_in: 0, et0_reported: true } });
    const unreported = patchDays(days(), { 0: { et0_in: 0, et0_reported: false } });
    expect(irrigationForecastSlice(clearInput({ daily: reported })).eto_today_mm).toBe(0);
    expect(irrigationForecastSlice(clearInput({ daily: unreported })).eto_today_mm).toBeNull();
  });
});

describe('sevenDayVerdicts', () => {
  it('gives 7 local days from today, today carrying the live verdict', () => {
    // Ten forecast days: the last strip day's 3-day look-ahead reaches day 9.
    const input = clearInput({ daily: days(10), weather: stationWeather({ rain_intensity_in_hr: 0.2 }) });
    const strip = sevenDayVerdicts(input);
    expect(strip.map((d) => d.date_local)).toEqual([0, 1, 2, 3, 4, 5, 6].map(dateAt));
    expect(strip.map((d) => d.day_offset)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(strip[0]).toMatchObject({
      verdict: 'skip',
      reason_code: 'rain_now',
      time_epoch: local(`${TODAY}T00:00:00`),
    });
    expect(strip.slice(1).every((d) => d.verdict === 'water')).toBe(true);
    expect(strip.every((d) => d.rain_evidence_incomplete === false)).toBe(true);
    expect(strip[1]).toMatchObject({
      temp_max_f: 80,
      temp_min_f: 60,
      precip_in: 0,
      precip_probability_max: 10,
    });
  });

  it('a missing day is all nulls and makes its own and the earlier look-ahead days incomplete', () => {
    const strip = sevenDayVerdicts(clearInput({ daily: patchDays(days(10), { 3: null }) }));
    expect(strip).toHaveLength(7);
    expect(strip[3]).toMatchObject({
      date_local: dateAt(3),
      temp_max_f: null,
      temp_min_f: null,
      precip_in: null,
      precip_probability_max: null,
      rain_evidence_incomplete: true,
      verdict: 'unknown',
    });
    // Day 3 is in the 3-day look-ahead of days 0, 1 and 2, and is day 2's "tomorrow".
    expect(strip.map((d) => d.rain_evidence_incomplete)).toEqual([
      true,
      true,
      true,
      true,
      false,
      false,
      false,
    ]);
    expect(strip[2]?.reason_code).toBe('tomorrow_rain_unknown');
    expect(strip[0]?.reason_code).toBe('rain_3day_unknown');
    expect(strip[4]?.verdict).toBe('water');
  });

  it('projects forecast rain, freeze and pause onto later days', () => {
    const daily = patchDays(days(10), {
      2: { precip_sum_in: 0.3, precip_probability_max: 100 },
      4: { temp_min_f: 35 },
    });
    const strip = sevenDayVerdicts(clearInput({ daily, pause_until_epoch: local(`${dateAt(6)}T03:00:00`) }));
    expect(strip.slice(1).map((d) => d.reason_code)).toEqual([
      'paused',
      'paused',
      'paused',
      'paused',
      'paused',
      'paused',
    ]);
    const unpaused = sevenDayVerdicts(clearInput({ daily }));
    expect(unpaused.map((d) => d.reason_code)).toEqual([
      'water',
      'tomorrow_rain',
      'rain_today_forecast',
      'water',
      'freeze',
      'water',
      'water',
    ]);
  });

  it('the look-ahead past the forecast horizon is incomplete, never dry', () => {
    // Today + 6 days: day 4 looks ahead to day 7, which the forecast does not reach.
    const strip = sevenDayVerdicts(clearInput({ daily: days(7) }));
    expect(strip.map((d) => d.rain_evidence_incomplete)).toEqual([
      false,
      false,
      false,
      false,
      true,
      true,
      true,
    ]);
    expect(strip[6]?.verdict).toBe('unknown');
  });

  it('reuses a skip check already computed for today', () => {
    const input = clearInput();
    const today = {
      ...evaluateSkipCheck(input),
      verdict: 'skip' as const,
      reason_code: 'marker',
      reason: 'x',
    };
    expect(sevenDayVerdicts(input, today)[0]?.reason_code).toBe('marker');
  });
});

describe('local days', () => {
  it('today and tomorrow follow the deployment zone, not UTC', () => {
    // 21:30 EDT on the 16th is already the 17th in UTC.
    const late = local(`${TODAY}T21:30:00`);
    const daily = patchDays(days(), {
      0: { precip_sum_in: 0.01 },
      1: { precip_sum_in: 0.02, precip_probability_max: 100 },
    });
    const check = evaluateSkipCheck(
      clearInput({ now_epoch: late, daily, weather: stationWeather({ rain_live_epoch: late }) }),
    );
    expect(check.rain_today_forecast_in).toBe(0.01);
    expect(check.forecast_in).toBe(0.02);
  });

  it('rejects an unknown time zone', () => {
    expect(() => evaluateSkipCheck(clearInput({ timezone: 'Mars/Olympus_Mons' }))).toThrow(RangeError);
  });
});

describe('day fixture sanity', () => {
  it('builds the expected dates', () => {
    expect(day(1).date_local).toBe(dateAt(1));
  });
});
