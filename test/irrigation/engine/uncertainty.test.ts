import { computeIrrigation } from '../../../server/src/irrigation/engine/engine';
import type { EngineInput, EngineOutput } from '../../../server/src/irrigation/engine/types';
import { irrigationSnapshotSchema } from '../../../server/src/irrigation/snapshot-schema';
import { MIDNIGHT, stationWeather } from '../skip/fixtures';
import { dateAt, day, forecast, HOUR, hours, input, NOW, pastDays } from './fixtures';

/**
 * The decision policy under uncertainty (policy/forecast-policy.ts) through the
 * engine, on the demo's front lawn (TAW 11.25 mm, RAW 5.63 mm, allowance
 * 7.03 mm) in a dry Orlando June: the root zone is proven full by 2 in of rain
 * on one past day, and dries about 3.4 mm a day after it.
 */

function front(out: EngineOutput, day = 0) {
  const z = out.snapshot.water_plan[day]?.zones.find((x) => x.zone === 'front_lawn');
  if (!z) throw new Error('no front_lawn plan');
  const b = out.snapshot.water_budgets.find((x) => (x as Record<string, unknown>)['zone'] === 'front_lawn');
  if (!b) throw new Error('no front_lawn budget');
  const zone = out.snapshot.zones.find((x) => x.slug === 'front_lawn');
  return {
    plan: z,
    budget: b as typeof b & Record<string, unknown>,
    math: zone?.math as Record<string, unknown>,
  };
}

/** Past week, dry but for 2 in of rain `daysAgo` days ago (the root zone full at its end). */
function wetDaysAgo(daysAgo: number) {
  return pastDays(7).map((d, i) => (i === 7 - daysAgo ? { ...d, precip_sum_in: 2 } : d));
}

/** Every forecast day promises 0.56 in at 80 %, and the afternoon hours carry it. */
function promisingForecast(past: ReturnType<typeof pastDays>): EngineInput['forecast'] {
  const rainyHour = (t: number) => {
    const h = ((t - MIDNIGHT) / HOUR) % 24;
    return h >= 14 && h < 18;
  };
  return forecast({
    past_daily: past,
    daily: Array.from({ length: 8 }, (_, i) => day(i, { precip_sum_in: 0.56, precip_probability_max: 80 })),
    hourly: hours(8).map((h) =>
      rainyHour(h.time_epoch) ? { ...h, precip_in: 0.14, precip_probability: 80 } : h,
    ),
  });
}

describe('rule 1: a forecast skip is a bet with a bounded loss', () => {
  it('a zone past its allowance waters through a forecast that promises rain (credit 0, reason with its numbers)', () => {
    // 3 dry days since the zone was full: 9.5 mm, past the 7.03 mm allowance.
    const out = computeIrrigation(input({ forecast: promisingForecast(wetDaysAgo(3)) }));
    const z = front(out);
    expect(out.snapshot.skip_check.reason_code).toBe('rain_today_forecast');
    expect(z.plan.reason_code).toBe('water');
    expect(z.plan.planned_seconds).toBeGreaterThan(0);
    expect(z.plan.reason).toMatch(/would pass the trigger/);
    expect(z.plan.reason).toMatch(
      /rain_today_forecast would skip, but depletion 0\.38 in already passed the trigger \(RAW 0\.22 in\): no bet on forecast rain until it is refilled/,
    );
    expect(z.plan.reason).not.toMatch(/stays below the trigger/);
    expect(z.budget.forecast_credit_mm).toBe(0);
    expect(z.budget.soil_due).toBe(true);
  });

  it('a zone within its allowance takes the bet: the credited rain keeps it not due, and the reason says it is a bet', () => {
    // 1 dry day: 3.4 mm now, 6.9 mm by the next session without rain (within 7.03 mm).
    const out = computeIrrigation(input({ forecast: promisingForecast(wetDaysAgo(1)) }));
    const z = front(out);
    expect(z.plan.reason_code).toBe('not_due');
    expect(z.plan.reason).toMatch(/forecast rain credited \(a bet within the stress allowance/);
    expect(z.plan.reason).not.toMatch(/-\d/); // no negative depletion
    expect(z.budget.forecast_credit_source).toBe('bias_forecast');
    expect(z.budget.forecast_credit_mm).toBeGreaterThan(0);
  });

  it('exposes the allowance: zones[].math.allowance_mm and water_budgets[].soil_allowance_mm', () => {
    const out = computeIrrigation(input({ forecast: forecast({ past_daily: wetDaysAgo(1) }) }));
    const z = front(out);
    expect(z.math['allowance_mm']).toBe(7.03);
    expect(z.budget.soil_allowance_mm).toBe(7.03);
    expect(irrigationSnapshotSchema.safeParse(out.snapshot).success).toBe(true);
  });

  it('credit is never applied water: the ledger-facing applied_mm and the depletion are the same with or without it', () => {
    const dry = computeIrrigation(input({ forecast: forecast({ past_daily: wetDaysAgo(1) }) }));
    const wet = computeIrrigation(input({ forecast: promisingForecast(wetDaysAgo(1)) }));
    expect(front(wet).budget.forecast_credit_mm).toBeGreaterThan(0);
    expect(front(wet).budget.applied_mm).toBe(front(dry).budget.applied_mm);
    expect(front(wet).budget.soil_depletion_mm).toBe(front(dry).budget.soil_depletion_mm);
  });
});

describe('rule 3: a failed bet is made up', () => {
  it('the day after a bet whose rain did not come (the record says dry), the zone past RAW waters and takes no second bet', () => {
    // Yesterday the zone sat at 3.4 mm and bet on the promised rain (see rule 1); the record shows
    // none fell, so today it starts at 6.9 mm, past RAW (5.63 mm) though within its allowance.
    const out = computeIrrigation(input({ forecast: promisingForecast(wetDaysAgo(2)) }));
    const z = front(out);
    expect(z.plan.depletion_mm).toBeGreaterThan(5.63);
    expect(z.plan.depletion_mm).toBeLessThanOrEqual(7.03);
    expect(z.plan.reason_code).toBe('water');
    expect(z.plan.planned_seconds).toBeGreaterThan(0);
    expect(z.plan.reason).toMatch(
      /already passed the trigger .* no bet on forecast rain until it is refilled/,
    );
    expect(z.budget.forecast_credit_mm).toBe(0);
  });
});

describe('rule 3: skill from the recorded promises', () => {
  it("records tomorrow's forecast rain with each day's decision", () => {
    const out = computeIrrigation(input({ forecast: promisingForecast(wetDaysAgo(1)) }));
    const line = out.decision.zones[0] as Record<string, unknown>;
    expect(line['forecast_tomorrow_rain_mm']).toBe(14.22);
    expect(line['forecast_tomorrow_rain_pct']).toBe(80);
  });

  it('a forecast whose recorded promises never came earns no credit: a hit rate of (0 kept + 1) / (5 promised + 1)', () => {
    const decisions = [2, 3, 4, 5, 6].map((back) => {
      const date = dateAt(-back - 1);
      return {
        date_local: date,
        epoch: NOW - (back + 1) * 86400,
        kind: 'water',
        zones: [
          {
            zone: 'front_lawn',
            name: 'Front lawn',
            reason_code: 'not_due',
            reason: '',
            water_need: 'low',
            planned_seconds: 0,
            forecast_tomorrow_rain_mm: 14.22,
            forecast_tomorrow_rain_pct: 80,
          },
        ],
      };
    });
    const trusting = computeIrrigation(input({ forecast: promisingForecast(wetDaysAgo(1)) }));
    expect(front(trusting).plan.reason_code).toBe('not_due');
    const burnt = computeIrrigation(
      input({ forecast: promisingForecast(wetDaysAgo(1)), recentDecisions: decisions }),
    );
    const trace = (
      burnt.snapshot as unknown as { decision_trace: { forecast_skill: Record<string, unknown> } }
    ).decision_trace.forecast_skill;
    // The record's rain of those days was dry (measured), so none of the promises was kept.
    expect(trace).toMatchObject({ promised_days: 5, kept_days: 0 });
    const full = front(trusting).budget.forecast_credit_mm;
    expect(full).toBeGreaterThan(0);
    // A hit rate of 1/6 is below the 50 % a forecast needs for its rain to count.
    expect(trace['hit_rate']).toBeCloseTo(1 / 6, 6);
    expect(front(burnt).budget.forecast_credit_mm).toBe(0);
    expect(front(burnt).budget.forecast_credit_source).toBe('none');
    expect(front(burnt).plan.reason_code).toBe('water');
  });
});

describe('rule 3: skill by lead time and month from the forecast archive', () => {
  const band = (lead_days: number, hours: [number, number], promised: number, kept: number, bias = 1) => ({
    lead_days,
    lead_hours: hours,
    promised_days: promised,
    kept_days: kept,
    hit_rate: (kept + 1) / (promised + 1),
    amount_bias: bias,
    trained: promised >= 8,
  });
  const skillTrace = (out: EngineOutput) =>
    (out.snapshot as unknown as { decision_trace: { forecast_skill: Record<string, unknown> } })
      .decision_trace.forecast_skill as {
      by_lead: { lead_days: number; source: string; weight: number; reason: string }[];
    };

  it('a trained band that kept none of its promises this month weighs its lead at 0, where the rolling figure trusts', () => {
    const forecastIn = promisingForecast(wetDaysAgo(1));
    const trusting = computeIrrigation(input({ forecast: forecastIn }));
    expect(front(trusting).budget.forecast_credit_mm).toBeGreaterThan(0);
    const archiveSkill = {
      month: 6,
      min_days: 8,
      by_lead: [band(0, [0, 11], 12, 0), band(1, [12, 35], 12, 0), band(2, [36, 47], 3, 3)],
    };
    const burnt = computeIrrigation(input({ forecast: forecastIn, archiveSkill }));
    expect(front(burnt).budget.forecast_credit_mm).toBe(0);
    expect(front(burnt).plan.reason_code).toBe('water');
    const byLead = skillTrace(burnt).by_lead;
    expect(byLead[0]).toMatchObject({ source: 'archive', weight: 0 });
    expect(byLead[0]?.reason).toMatch(/kept 0 of 12 rain promises this month/);
    // Two days ahead is under-trained (3 of 8 days): the rolling figure, and the trace says so.
    expect(byLead[2]?.source).toBe('rolling');
    expect(byLead[2]?.reason).toMatch(/under-trained this month \(3 of 8 days\)/);
    // Past the archive's leads: the lowest trained weight (0 here).
    expect(byLead[5]).toMatchObject({ source: 'rolling', weight: 0 });
  });

  it('a trained band weighs its rain by hit rate times its amount bias', () => {
    const archiveSkill = { month: 6, min_days: 8, by_lead: [band(0, [0, 11], 9, 9, 0.5)] };
    const forecastIn = promisingForecast(wetDaysAgo(1));
    const full = front(computeIrrigation(input({ forecast: forecastIn }))).budget
      .forecast_credit_mm as number;
    const out = computeIrrigation(input({ forecast: forecastIn, archiveSkill }));
    expect(skillTrace(out).by_lead[0]?.weight).toBeCloseTo(0.5, 6);
    expect(front(out).budget.forecast_credit_mm as number).toBeLessThan(full);
  });
});

describe('rule 2: forecast rain counts when it is coming', () => {
  it('a due zone waits for rain the skip rules do not skip for, under forecast_rain_expected', () => {
    // 0.2 in at 90 % today: below rain_skip_in (0.25 in), so no skip rule holds the yard.
    const past = wetDaysAgo(1);
    const daily = Array.from({ length: 8 }, (_, i) =>
      day(i, i === 0 ? { precip_sum_in: 0.2, precip_probability_max: 90 } : {}),
    );
    const dry = computeIrrigation(input({ forecast: forecast({ past_daily: past }) }));
    expect(front(dry).plan.reason_code).toBe('water');
    const out = computeIrrigation(input({ forecast: forecast({ past_daily: past, daily }) }));
    expect(out.snapshot.skip_check.verdict).toBe('water');
    const z = front(out);
    expect(z.plan.reason_code).toBe('forecast_rain_expected');
    expect(z.plan.planned_seconds).toBe(0);
    expect(z.plan.reason).toMatch(
      /waiting for rain: .* expected on 2025-06-16 .* within the stress allowance/,
    );
    expect(z.budget.soil_deferred_kind).toBe('forecast_rain_expected');
  });
});

describe('rule 5: missing measured evidence is decided within the allowance', () => {
  // Full 3 days ago, yesterday's rain unknown: the depletion is a range [3.4, 9.5] mm. Cool forecast
  // days (ET0 0.05 in) keep the lower end below RAW by the next session; the upper end is past the allowance.
  const gapInput = () =>
    input({
      forecast: forecast({
        past_daily: pastDays(7).map((d, i) =>
          i === 4 ? { ...d, precip_sum_in: 2 } : i === 6 ? { ...d, precip_sum_in: null } : d,
        ),
        daily: Array.from({ length: 8 }, (_, i) =>
          day(i, {
            et0_in: 0.05,
            temp_max_f: 58,
            temp_min_f: 48,
            radiation_mj_m2: 4,
            humidity_mean_pct: 90,
            humidity_pct: 90,
          }),
        ),
      }),
    });

  it('a range opened by missing rain whose upper end could pass the allowance waters (establishing refill), never left to wait', () => {
    const out = computeIrrigation(gapInput());
    const z = front(out);
    expect(z.plan.depletion_mm).toBeNull();
    expect(z.plan.depletion_range_mm).toEqual([3.43, 9.53]);
    expect(z.plan.reason_code).toBe('establishing_refill');
    expect(z.plan.planned_seconds).toBeGreaterThan(0);
    expect(z.plan.reason).toMatch(/rain unknown since .* past the stress allowance .*: not left to wait/);
    expect(z.plan.reason).not.toMatch(/even its lower bound/);
  });

  it('null stays null: the unknown day keeps rain null in the trace, and the depletion stays a range', () => {
    const out = computeIrrigation(gapInput());
    const z = front(out);
    expect(z.budget.soil_depletion_mm).toBeNull();
    expect(z.budget.soil_depletion_range_mm).toEqual([3.43, 9.53]);
  });
});

describe('rule 5: a hold on missing evidence waits on the allowance, except freeze', () => {
  const noRainNow = (wetAgo: number) =>
    input({
      weather: stationWeather({ rain_intensity_in_hr: null }),
      forecast: forecast({
        past_daily: wetDaysAgo(wetAgo),
        hourly: hours(8).map((h) =>
          Math.abs(h.time_epoch - NOW) < 2 * HOUR ? { ...h, precip_in: null } : h,
        ),
      }),
    });

  it('an unknown rain rate holds a due zone that can afford to wait', () => {
    const out = computeIrrigation(noRainNow(1));
    expect(out.snapshot.skip_check.verdict).toBe('unknown');
    const z = front(out);
    expect(z.plan.reason_code).toMatch(/_unknown$/);
    expect(z.plan.planned_seconds).toBe(0);
  });

  it('but not one past its allowance: it waters, and the reason says the evidence was missing', () => {
    const out = computeIrrigation(noRainNow(3));
    const z = front(out);
    expect(z.plan.reason_code).toBe('water');
    expect(z.plan.planned_seconds).toBeGreaterThan(0);
    expect(z.plan.reason).toMatch(/_unknown: the evidence cannot rule out a skip, but/);
  });

  it('an unknown freeze rule always holds', () => {
    const out = computeIrrigation(
      input({
        forecast: forecast({
          past_daily: wetDaysAgo(3),
          hourly: hours(8, { temp_f: null }),
          daily: Array.from({ length: 8 }, (_, i) => day(i, { temp_min_f: null })),
        }),
      }),
    );
    expect(out.snapshot.skip_check.reason_code).toBe('freeze_unknown');
    expect(front(out).plan.planned_seconds).toBe(0);
  });
});

describe('rule 4: no forecast is not no water', () => {
  const noForecast = () =>
    input({
      forecast: forecast({ daily: [], hourly: [], past_daily: wetDaysAgo(3), source_reachable: false }),
    });

  it('the forward rules do not apply, freeze is judged on the live temperature and recorded lows, and a due zone waters', () => {
    const out = computeIrrigation(noForecast());
    const skip = out.snapshot.skip_check as unknown as {
      verdict: string;
      rules: { rule: string; reason_code: string; verdict: string }[];
    };
    expect(skip.verdict).toBe('water');
    const byRule = new Map(skip.rules.map((r) => [r.rule, r]));
    for (const rule of ['wind_forecast', 'rain_today_forecast', 'rain_next_4h', 'tomorrow_rain', 'rain_3day'])
      expect(byRule.get(rule)?.reason_code).toBe(`${rule}_no_forecast`);
    expect(byRule.get('freeze')).toMatchObject({ verdict: 'pass', reason_code: 'freeze_pass' });
    const z = front(out);
    expect(z.plan.reason_code).toBe('water');
    expect(z.plan.planned_seconds).toBeGreaterThan(0);
    expect(z.plan.reason).toMatch(/no forecast: watered on local evidence, no rain credited/);
    expect(z.budget.forecast_credit_mm).toBe(0);
    expect(z.budget.forecast_credit_source).toBe('unavailable');
    expect(z.budget.soil_deferred_kind).toBeNull();
  });

  it('a cold recorded night holds the run without a forecast (freeze safety)', () => {
    const cold = pastDays(7).map((d, i) =>
      i === 6 ? { ...d, temp_min_f: 35 } : i === 4 ? { ...d, precip_sum_in: 2 } : d,
    );
    const out = computeIrrigation(
      input({ forecast: forecast({ daily: [], hourly: [], past_daily: cold, source_reachable: false }) }),
    );
    expect(out.snapshot.skip_check.reason_code).toBe('freeze');
    expect(front(out).plan.planned_seconds).toBe(0);
  });

  it('no fabricated number: without a forecast ET0 of the plan days is named as the record stand-in, never 0', () => {
    const out = computeIrrigation(noForecast());
    const trace = (
      out.snapshot as unknown as {
        decision_trace: { et0_days: { date_local: string; et0_mm: number | null; method: string | null }[] };
      }
    ).decision_trace;
    const today = trace.et0_days.find((d) => d.date_local === '2025-06-16');
    expect(today?.method).toBe('recent_record');
    expect(today?.et0_mm).toBeGreaterThan(0);
    const z = front(out);
    expect(z.plan.depletion_mm).not.toBeNull();
  });
});
