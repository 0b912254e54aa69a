import { wording } from '../../../server/src/core/units/quantities';
import {
  allowanceMm,
  ALLOWANCE_SHARE,
  canAffordToWait,
  findRainBet,
  forecastCredit,
  forecastSkill,
  forecastUnavailableDefers,
  forwardRuleWithoutForecast,
  freezeWithoutForecast,
  NO_FORECAST_FREEZE_MARGIN_F,
  rainBetDecision,
  RAIN_EXPECTED_CODE,
  skillWeightedRainMm,
} from '../../../server/src/irrigation/policy/forecast-policy';
import { DEFAULT_SKIP_RULES } from '../../../server/src/irrigation/skip/rules';

const say = wording('metric');
const TAW = 40;
const RAW = 20;
const ALLOWANCE = RAW + ALLOWANCE_SHARE * (TAW - RAW); // 25 mm

describe('the stress allowance', () => {
  it('is RAW plus a documented share of TAW − RAW', () => {
    expect(allowanceMm(TAW, RAW)).toBe(ALLOWANCE);
  });

  it('is null, never a made-up number, when TAW or RAW is unknown', () => {
    expect(allowanceMm(null, RAW)).toBeNull();
    expect(allowanceMm(TAW, null)).toBeNull();
  });
});

describe('a forecast skip is a bet with a bounded loss', () => {
  const afford = (start: number, etc: number | null) =>
    canAffordToWait(
      { start_hi_mm: start, raw_mm: RAW, allowance_mm: ALLOWANCE, etc_until_rain_mm: etc },
      say,
    );

  it('affords a wait whose depletion at the rain stays within the allowance', () => {
    const a = afford(15, 8);
    expect(a.affordable).toBe(true);
    expect(a.depletion_at_rain_mm).toBe(23);
    expect(a.reason).toContain('23');
    expect(a.reason).toContain('within the stress allowance');
  });

  it('refuses a wait that would leave the zone past its allowance if the rain does not come', () => {
    const a = afford(15, 12);
    expect(a.affordable).toBe(false);
    expect(a.code).toBe('forecast_bet_unaffordable');
    expect(a.reason).toMatch(/past the stress allowance/);
  });

  it('gives a zone already past RAW no second bet (the failed bet is made up)', () => {
    const a = afford(RAW + 0.5, 0);
    expect(a.affordable).toBe(false);
    expect(a.code).toBe('forecast_bet_made_up');
  });

  it('never bets on an unknown crop water use', () => {
    expect(afford(5, null).affordable).toBe(false);
  });
});

describe('forecast credit', () => {
  const base = {
    forecast_present: true,
    next24h_mm: 10,
    bias_multiplier: 1,
    rain_cap_mm: 25,
    affordable: true,
  };

  it('credits the next 24 hours x the bias, capped, for a zone that can afford it', () => {
    expect(forecastCredit({ ...base, bias_multiplier: 0.5 }, say)).toMatchObject({
      mm: 5,
      source: 'bias_forecast',
    });
    expect(forecastCredit({ ...base, rain_cap_mm: 4 }, say).mm).toBe(4);
  });

  it('is 0 for a zone that cannot afford to wait (the credit is a bet)', () => {
    const c = forecastCredit({ ...base, affordable: false }, say);
    expect(c).toMatchObject({ mm: 0, source: 'none', code: 'credit_unaffordable' });
  });

  it('is 0 with source unavailable without a forecast or with an incomplete one', () => {
    expect(forecastCredit({ ...base, forecast_present: false }, say)).toMatchObject({
      mm: 0,
      source: 'unavailable',
    });
    expect(forecastCredit({ ...base, next24h_mm: null }, say)).toMatchObject({
      mm: 0,
      source: 'unavailable',
    });
  });
});

describe('forecast rain counts when it is coming', () => {
  const day = (date: string, rain: number | null, prob: number | null, etc: number | null) => ({
    date_local: date,
    rain_mm: rain,
    probability_pct: prob,
    etc_mm: etc,
  });
  const input = (start: number, days: ReturnType<typeof day>[]) => ({
    start_hi_mm: start,
    raw_mm: RAW,
    allowance_mm: ALLOWANCE,
    bias_multiplier: 1,
    rain_cap_mm: 30,
    days,
  });

  it('waits for rain after the next session when it would refill the zone and the wait is affordable', () => {
    const bet = findRainBet(input(16, [day('d0', 0, 0, 3), day('d1', 0, 0, 3), day('d2', 24, 90, 2)]));
    expect(bet).toEqual({ date_local: 'd2', credited_mm: 24 * 0.9, depletion_at_rain_mm: 24 });
    const decision = rainBetDecision(bet, null, ALLOWANCE, say);
    expect(decision).toMatchObject({ wait: true, code: RAIN_EXPECTED_CODE });
  });

  it('keeps the skip rule code when a forecast-rain skip holds the bet', () => {
    const bet = findRainBet(input(16, [day('d0', 0, 0, 3), day('d1', 20, 80, 3)]));
    expect(rainBetDecision(bet, 'tomorrow_rain', ALLOWANCE, say)).toMatchObject({
      wait: true,
      code: 'tomorrow_rain',
    });
  });

  it('does not wait when the rain comes after the allowance is spent, or is too small to refill', () => {
    expect(
      findRainBet(input(16, [day('d0', 0, 0, 5), day('d1', 0, 0, 5), day('d2', 30, 100, 1)])),
    ).toBeNull();
    expect(findRainBet(input(16, [day('d0', 4, 100, 3)]))).toBeNull();
  });

  it('weights the rain by its probability and the learned bias: a forecast that over-promises earns less', () => {
    expect(skillWeightedRainMm(20, 50, 1, 30)).toBe(10);
    expect(skillWeightedRainMm(20, 100, 0.25, 30)).toBe(5);
    expect(skillWeightedRainMm(null, 100, 1, 30)).toBeNull();
    const trusted = findRainBet({ ...input(18, [day('d0', 20, 100, 3)]) });
    const untrusted = findRainBet({ ...input(18, [day('d0', 20, 100, 3)]), bias_multiplier: 0.25 });
    expect(trusted).not.toBeNull();
    expect(untrusted).toBeNull();
  });

  it('gives no bet to a zone already past RAW', () => {
    expect(findRainBet(input(RAW + 1, [day('d0', 30, 100, 1)]))).toBeNull();
  });

  it('says why a rain skip did not hold a zone that cannot afford it', () => {
    const d = rainBetDecision(null, 'tomorrow_rain', ALLOWANCE, say);
    expect(d.wait).toBe(false);
    expect(d.wait ? '' : d.note).toMatch(/tomorrow_rain would skip, but the zone cannot afford to wait/);
  });
});

describe('no forecast is not no water', () => {
  const rules = DEFAULT_SKIP_RULES;
  const t = rules.min_temp_f;

  it('forward rules are not applicable, and say so', () => {
    const r = forwardRuleWithoutForecast('tomorrow_rain');
    expect(r).toMatchObject({ verdict: 'pass', reason_code: 'tomorrow_rain_no_forecast' });
    expect(r.reason).toMatch(/No forecast/);
  });

  it('forecast_unavailable defers only an incomplete forecast and only within the allowance', () => {
    expect(forecastUnavailableDefers(true, true)).toBe(true);
    expect(forecastUnavailableDefers(true, false)).toBe(false);
    expect(forecastUnavailableDefers(false, true)).toBe(false);
  });

  it('judges freeze on the live temperature and recent recorded lows with a documented margin', () => {
    const clear = freezeWithoutForecast({ live_temp_f: 70, recent_lows_f: [60, 58, null] }, rules, say);
    expect(clear).toMatchObject({ verdict: 'pass', reason_code: 'freeze_pass' });
    const coldNow = freezeWithoutForecast(
      { live_temp_f: t + NO_FORECAST_FREEZE_MARGIN_F, recent_lows_f: [60] },
      rules,
      say,
    );
    expect(coldNow).toMatchObject({ verdict: 'skip', reason_code: 'freeze' });
    const coldNight = freezeWithoutForecast({ live_temp_f: 60, recent_lows_f: [50, t] }, rules, say);
    expect(coldNight).toMatchObject({ verdict: 'skip', reason_code: 'freeze' });
    const unknown = freezeWithoutForecast({ live_temp_f: null, recent_lows_f: [null] }, rules, say);
    expect(unknown).toMatchObject({ verdict: 'unknown', reason_code: 'freeze_unknown' });
    expect(unknown.inputs['live_temp_f']).toBeNull();
    expect(unknown.inputs['recent_low_f']).toBeNull();
  });
});

describe('forecast skill: a forecast that keeps promising rain that never comes earns little trust', () => {
  const promise = (date: string, mm: number | null, pct: number | null = 80) => ({
    date_local: date,
    precip_mm: mm,
    probability_pct: pct,
  });

  it('counts informative day-ahead promises against measured rain: (kept + 1) / (promised + 1)', () => {
    const measured = new Map<string, number | null>([
      ['d1', 0],
      ['d2', 0],
      ['d3', 10],
      ['d4', null],
    ]);
    const skill = forecastSkill(
      [promise('d1', 14), promise('d2', 14), promise('d3', 14), promise('d4', 14), promise('d5', 1)],
      (d) => measured.get(d) ?? null,
    );
    // d4's rain is unknown (left out, never read as dry); d5 promised too little to count.
    expect(skill).toMatchObject({ promised_days: 3, kept_days: 1, factor: 0.5 });
    expect(skill.reason).toContain('kept 1 of its last 3');
  });

  it('trusts fully until there is evidence, and a forecast that kept its promises keeps full weight', () => {
    expect(forecastSkill([], () => 0).factor).toBe(1);
    expect(forecastSkill([promise('d1', 14), promise('d2', 20)], () => 12).factor).toBe(1);
  });

  it('a persistent false alarm earns no trust: below a 50 % hit rate its rain is not counted', () => {
    const days = Array.from({ length: 10 }, (_, i) => promise(`d${i}`, 14));
    const skill = forecastSkill(days, () => 0);
    expect(skill.hit_rate).toBeCloseTo(1 / 11, 6);
    expect(skill.factor).toBe(0);
    expect(skill.reason).toMatch(/not counted/);
  });
});
