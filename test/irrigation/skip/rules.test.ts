import { skipRulesSchema } from '../../../server/src/config/schema';
import {
  DEFAULT_SKIP_RULES,
  HEAT_ADVISORY_RUN_MULTIPLIER,
  RULE_IDS,
  alreadyWetRule,
  bounded,
  freezeRule,
  heatAdvisoryRule,
  pausedRule,
  rain3DayRule,
  rainNext4hRule,
  rainNowRule,
  rainTodayForecastRule,
  soilFrostRule,
  tomorrowRainRule,
  windForecastRule,
  windNowRule,
  type RuleResult,
  type RuleVerdict,
  type SkipRules,
} from '../../../server/src/irrigation/skip';
import { NOW, TZ } from './fixtures';

const R = DEFAULT_SKIP_RULES;

function verdictOf(r: RuleResult): [RuleVerdict, string] {
  return [r.verdict, r.reason_code];
}

describe('DEFAULT_SKIP_RULES', () => {
  it('equals the config schema defaults (spec 2.6)', () => {
    expect(DEFAULT_SKIP_RULES).toEqual(skipRulesSchema.parse({}));
  });
});

/**
 * Each threshold rule at, just below and just above its threshold, with the
 * verdict expected in each case.
 */
type Case = {
  name: string;
  threshold: number;
  run: (v: number, rules?: SkipRules) => RuleResult;
  at: RuleVerdict;
  below: RuleVerdict;
  above: RuleVerdict;
  delta: number;
};

const cases: Case[] = [
  {
    name: 'already_wet (>= already_wet_in 0.05)',
    threshold: R.already_wet_in,
    run: (v, rules) => alreadyWetRule({ rain_today_in: v, source: 'gauge' }, rules),
    at: 'skip',
    below: 'pass',
    above: 'skip',
    delta: 0.01,
  },
  {
    name: 'rain_now (>= rain_now_in_hr 0.01)',
    threshold: R.rain_now_in_hr,
    run: (v, rules) => rainNowRule({ intensity_in_hr: v, source: 'station' }, rules),
    at: 'skip',
    below: 'pass',
    above: 'skip',
    delta: 0.001,
  },
  {
    name: 'rain_next_4h (>= rain_next_4h_skip_in 0.10)',
    threshold: R.rain_next_4h_skip_in,
    run: (v, rules) => rainNext4hRule({ rain_next_4h_in: v }, rules),
    at: 'skip',
    below: 'pass',
    above: 'skip',
    delta: 0.01,
  },
  {
    name: 'rain_today_forecast (>= rain_skip_in 0.25)',
    threshold: R.rain_skip_in,
    run: (v, rules) => rainTodayForecastRule({ rain_today_forecast_in: v }, rules),
    at: 'skip',
    below: 'pass',
    above: 'skip',
    delta: 0.01,
  },
  {
    name: 'tomorrow_rain, certain (amount x 100% >= rain_skip_in 0.25)',
    threshold: R.rain_skip_in,
    run: (v, rules) => tomorrowRainRule({ rain_tomorrow_in: v, rain_tomorrow_prob_pct: 100 }, rules),
    at: 'skip',
    below: 'pass',
    above: 'skip',
    delta: 0.01,
  },
  {
    name: 'rain_3day (>= rain_3day_factor 1.5 x rain_skip_in 0.25 = 0.375)',
    threshold: R.rain_3day_factor * R.rain_skip_in,
    run: (v, rules) => rain3DayRule({ rain_3day_weighted_in: v }, rules),
    at: 'skip',
    below: 'pass',
    above: 'skip',
    delta: 0.001,
  },
  {
    name: 'wind_now (> max_wind_mph 10)',
    threshold: R.max_wind_mph,
    run: (v, rules) => windNowRule({ wind_mph: v, source: 'station' }, rules),
    at: 'pass',
    below: 'pass',
    above: 'skip',
    delta: 0.1,
  },
  {
    name: 'wind_forecast (> max_wind_mph 10 + wind_forecast_slack_mph 5)',
    threshold: R.max_wind_mph + R.wind_forecast_slack_mph,
    run: (v, rules) => windForecastRule({ max_wind_mph: v, scope: 'run_window' }, rules),
    at: 'pass',
    below: 'pass',
    above: 'skip',
    delta: 0.1,
  },
  {
    name: 'freeze (<= min_temp_f 38)',
    threshold: R.min_temp_f,
    run: (v, rules) => freezeRule({ min_temp_f: v, scope: 'run_window' }, rules),
    at: 'skip',
    below: 'skip',
    above: 'pass',
    delta: 0.1,
  },
  {
    name: 'soil_frost (<= frost_skip_soil_f 35)',
    threshold: R.frost_skip_soil_f,
    run: (v, rules) => soilFrostRule({ temp_f: v }, rules),
    at: 'skip',
    below: 'skip',
    above: 'pass',
    delta: 0.1,
  },
];

describe.each(cases)('$name', ({ threshold, run, at, below, above, delta }) => {
  it('at the threshold', () => {
    expect(run(threshold).verdict).toBe(at);
  });

  it('just below', () => {
    expect(run(threshold - delta).verdict).toBe(below);
  });

  it('just above', () => {
    expect(run(threshold + delta).verdict).toBe(above);
  });

  it('missing evidence is unknown with <rule>_unknown, never a pass', () => {
    const r = run(Number.NaN);
    expect(verdictOf(r)).toEqual(['unknown', `${r.rule}_unknown`]);
    const n = run(null as unknown as number);
    expect(verdictOf(n)).toEqual(['unknown', `${n.rule}_unknown`]);
    expect(n.can_skip).toBe(true);
  });

  it('names the numbers in its reason and codes skip / pass as <rule> / <rule>_pass', () => {
    const r = run(threshold + (above === 'skip' ? delta : -delta));
    expect(r.reason_code).toBe(r.rule);
    expect(r.reason).toMatch(/\d/);
    const p = run(threshold + (above === 'pass' ? delta : -delta));
    expect(p.reason_code).toBe(`${p.rule}_pass`);
  });

  it('reads its threshold from the config, not a literal', () => {
    const doubled: SkipRules = {
      ...R,
      already_wet_in: R.already_wet_in * 2,
      rain_now_in_hr: R.rain_now_in_hr * 2,
      rain_next_4h_skip_in: R.rain_next_4h_skip_in * 2,
      rain_skip_in: R.rain_skip_in * 2,
      max_wind_mph: R.max_wind_mph * 2,
      min_temp_f: R.min_temp_f - 10,
      frost_skip_soil_f: R.frost_skip_soil_f - 10,
    };
    // The default threshold's skipping side no longer skips under the moved threshold.
    const skipping = threshold + (above === 'skip' ? delta : -delta);
    expect(run(skipping).verdict).toBe('skip');
    expect(run(skipping, doubled).verdict).toBe('pass');
  });
});

describe('partial evidence decides only what it proves', () => {
  it('a lower bound at the threshold proves rain; below it proves nothing', () => {
    expect(rainNext4hRule({ rain_next_4h_in: bounded(0.12, null, 3, 4) }).verdict).toBe('skip');
    expect(rainNext4hRule({ rain_next_4h_in: bounded(0.05, null, 3, 4) }).verdict).toBe('unknown');
  });

  it('an upper bound below the threshold proves dry', () => {
    expect(rain3DayRule({ rain_3day_weighted_in: bounded(0, 0.3, 2, 3) }).verdict).toBe('pass');
    expect(rain3DayRule({ rain_3day_weighted_in: bounded(0, 0.4, 2, 3) }).verdict).toBe('unknown');
  });

  it('the coldest reported hour can prove a freeze; a warm partial window proves nothing', () => {
    expect(freezeRule({ min_temp_f: bounded(null, 36, 2, 3), scope: 'run_window' }).verdict).toBe('skip');
    const r = freezeRule({ min_temp_f: bounded(null, 50, 2, 3), scope: 'run_window' });
    expect(verdictOf(r)).toEqual(['unknown', 'freeze_unknown']);
    expect(r.reason).toContain('2 of 3 hours reported');
  });
});

describe('tomorrow_rain probability weighting', () => {
  const run = (amount: number | null, prob: number | null) =>
    tomorrowRainRule({ rain_tomorrow_in: amount, rain_tomorrow_prob_pct: prob }).verdict;

  it('weights the amount by the probability: 0.5 in at 50% is 0.25 in', () => {
    expect(run(0.5, 50)).toBe('skip');
    expect(run(0.5, 48)).toBe('pass');
    expect(run(0.5, 52)).toBe('skip');
    expect(run(1.0, 0)).toBe('pass');
  });

  it('without a probability: passes only when even the full amount is below the threshold', () => {
    expect(run(0.2, null)).toBe('pass');
    expect(run(0.25, null)).toBe('unknown');
    expect(run(0, null)).toBe('pass');
    expect(run(null, 90)).toBe('unknown');
  });

  it('says which numbers it weighed', () => {
    const r = tomorrowRainRule({ rain_tomorrow_in: 0.6, rain_tomorrow_prob_pct: 50 });
    expect(r.reason).toBe('Rain tomorrow: 0.3 in weighted (0.6 in x 50% chance), at or above 0.25 in.');
    expect(r.inputs).toMatchObject({
      rain_tomorrow_in: 0.6,
      rain_tomorrow_prob_pct: 50,
      rain_tomorrow_weighted_in: 0.3,
    });
  });
});

describe('soil_frost', () => {
  it('does not apply without a configured probe', () => {
    expect(verdictOf(soilFrostRule(null))).toEqual(['pass', 'soil_frost_no_probe']);
  });

  it('a configured probe without a reading is unknown', () => {
    expect(verdictOf(soilFrostRule({ temp_f: null }))).toEqual(['unknown', 'soil_frost_unknown']);
  });
});

describe('pausedRule', () => {
  it('skips while the pause runs, naming its local end', () => {
    const r = pausedRule({ pause_until_epoch: NOW + 86400, at_epoch: NOW, timezone: TZ });
    expect(verdictOf(r)).toEqual(['skip', 'paused']);
    expect(r.reason).toBe('Watering is paused until Tue Jun 17, 10:30.');
  });

  it('passes when no pause is set or it has ended', () => {
    expect(pausedRule({ pause_until_epoch: 0, at_epoch: NOW, timezone: TZ }).verdict).toBe('pass');
    expect(pausedRule({ pause_until_epoch: NOW, at_epoch: NOW, timezone: TZ }).verdict).toBe('pass');
  });
});

describe('heat advisory: adds water, never skips', () => {
  const hot = {
    temp_max_3day_f: 97,
    humidity_pct: 65,
    days_since_significant_rain: 3,
    rain_3day_weighted_in: 0.02,
  };

  it('active when the heat, humidity, dry spell and dry forecast are all proven', () => {
    const r = heatAdvisoryRule(hot);
    expect(verdictOf(r)).toEqual(['pass', 'heat_advisory']);
    expect(r.run_multiplier).toBe(HEAT_ADVISORY_RUN_MULTIPLIER);
    expect(r.can_skip).toBe(false);
    expect(r.reason).toContain('run at 115% of the planned time');
  });

  it.each([
    ['3-day high at 95 F', { temp_max_3day_f: 95 }, 'heat_advisory'],
    ['3-day high just below', { temp_max_3day_f: 94.9 }, 'heat_advisory_pass'],
    ['humidity at 60%', { humidity_pct: 60 }, 'heat_advisory'],
    ['humidity just below', { humidity_pct: 59.9 }, 'heat_advisory_pass'],
    ['2 dry days', { days_since_significant_rain: 2 }, 'heat_advisory'],
    ['1 dry day', { days_since_significant_rain: 1 }, 'heat_advisory_pass'],
    ['3-day rain just below half the skip amount', { rain_3day_weighted_in: 0.124 }, 'heat_advisory'],
    ['3-day rain at half the skip amount', { rain_3day_weighted_in: 0.125 }, 'heat_advisory_pass'],
  ])('%s', (_name, change, code) => {
    const r = heatAdvisoryRule({ ...hot, ...change });
    expect(r.reason_code).toBe(code);
    expect(r.verdict).toBe('pass');
    expect(r.run_multiplier).toBe(code === 'heat_advisory' ? HEAT_ADVISORY_RUN_MULTIPLIER : 1);
  });

  it('missing evidence never earns an extension, and never holds watering', () => {
    const r = heatAdvisoryRule({ ...hot, humidity_pct: null });
    expect(verdictOf(r)).toEqual(['unknown', 'heat_advisory_unknown']);
    expect(r.run_multiplier).toBe(1);
    expect(r.can_skip).toBe(false);
    const dryUnknown = heatAdvisoryRule({ ...hot, days_since_significant_rain: bounded(1, null, 1, 2) });
    expect(dryUnknown.reason_code).toBe('heat_advisory_unknown');
    expect(dryUnknown.reason).toContain('at least 1 day (earlier rain unknown)');
  });

  it('one proven failing condition decides the pass even when another is unknown', () => {
    const r = heatAdvisoryRule({ ...hot, temp_max_3day_f: 80, humidity_pct: null });
    expect(verdictOf(r)).toEqual(['pass', 'heat_advisory_pass']);
  });
});

describe('every rule id is reachable', () => {
  it('lists the rules in ladder order', () => {
    expect(RULE_IDS).toEqual([
      'paused',
      'rain_now',
      'freeze',
      'soil_frost',
      'wind_now',
      'wind_forecast',
      'already_wet',
      'rain_today_forecast',
      'rain_next_4h',
      'tomorrow_rain',
      'rain_3day',
      'heat_advisory',
    ]);
  });
});
