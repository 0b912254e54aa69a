import { sessionDays } from '../../../server/src/agronomy/soil/water-balance';
import { unionIntervals, zoneLedger } from '../../../server/src/irrigation/engine/applied-water';
import { sessionPlanOf } from '../../../server/src/irrigation/dispatch/session-plan';
import { computeIrrigation } from '../../../server/src/irrigation/engine/engine';
import { explainVerdict } from '../../../server/src/irrigation/engine/explain';
import type { EngineOutput } from '../../../server/src/irrigation/engine/types';
import {
  irrigationSnapshotSchema,
  dailyDecisionSchema,
} from '../../../server/src/irrigation/snapshot-schema';
import { localCalendar } from '../../../server/src/irrigation/skip/local-days';
import { controls, dateAt, day, demo, forecast, HOUR, hours, input, local, NOW, run, TZ } from './fixtures';

function zonePlan(out: EngineOutput, slug: string, day = 0) {
  const z = out.snapshot.water_plan[day]?.zones.find((x) => x.zone === slug);
  if (!z) throw new Error(`no plan for ${slug} day ${day}`);
  return z;
}
function budget(out: EngineOutput, slug: string) {
  const b = out.snapshot.water_budgets.find((x) => (x as Record<string, unknown>)['zone'] === slug);
  if (!b) throw new Error(`no budget for ${slug}`);
  return b;
}

describe('computeIrrigation: snapshot shape', () => {
  const out = computeIrrigation(input());

  it('validates against irrigationSnapshotSchema with every zone and 7 plan days', () => {
    const parsed = irrigationSnapshotSchema.safeParse(out.snapshot);
    expect(parsed.success ? [] : parsed.error.issues).toEqual([]);
    expect(out.snapshot.zones.map((z) => z.slug)).toEqual([
      'back_lawn',
      'front_lawn',
      'shade_bed',
      'side_strip',
      'vegetables',
      'xeriscape',
    ]);
    expect(out.snapshot.water_plan).toHaveLength(7);
    expect(out.snapshot.water_plan.map((d) => d.day_offset)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    for (const day of out.snapshot.water_plan) expect(day.zones).toHaveLength(6);
    expect(out.snapshot.water_budgets).toHaveLength(6);
    expect(dailyDecisionSchema.safeParse(out.decision).success).toBe(true);
  });

  it('fills the fixed and deprecated fields', () => {
    const s = out.snapshot;
    expect(s.iu_enabled).toBe(false);
    expect(s.iu_suspended).toBe(false);
    expect(s.ha_reachable).toBe(true);
    expect(s.override_helpers_present).toBe(s.controls_persisted);
    expect(s.zones.every((z) => z.hex === '' && z.today_run_minutes === null)).toBe(true);
    expect(s.water_budgets.every((b) => b.mode_active === true)).toBe(true);
    expect(s.flow).toEqual({
      rate_gpm: null,
      rate_source_id: null,
      total_gal_today: null,
      total_source_id: null,
    });
    expect(s.flow_connected).toBe(false);
    expect(s.water_level_pct).toBeNull();
    expect(s.restart_required).toBe(false);
    expect(s.restriction_allowed_days).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(s.soil_forecasts.every((f) => f.status === 'no_probe')).toBe(true);
    expect(s.timezone).toBe(TZ);
  });

  it('is deterministic (pure)', () => {
    expect(computeIrrigation(input())).toEqual(out);
  });
});

describe('soil model', () => {
  it('a dry week proves a soil zone due from an unknown start: an establishing refill to the upper bound', () => {
    const out = computeIrrigation(input());
    const front = zonePlan(out, 'front_lawn');
    // Nothing proved the root zone full in the week: the state is still a range, but even its
    // lower bound is past the trigger, so the zone is due and is refilled to the range's top.
    expect(front.reason_code).toBe('establishing_refill');
    expect(front.water_need).toBe('due');
    expect(front.depletion_mm).toBeNull();
    const [lo, hi] = front.depletion_range_mm as [number, number];
    expect(lo).toBeGreaterThanOrEqual(front.trigger_mm as number);
    expect(front.demand_mm).toBeCloseTo(hi, 1);
    expect(front.reason).toContain('establishing refill to the upper bound');
    expect(front.planned_seconds).toBeGreaterThan(0);
    expect(front.planned_seconds).toBeLessThanOrEqual(3600);
    const zone = out.snapshot.zones.find((z) => z.slug === 'front_lawn');
    expect(zone?.planned_run_seconds).toBe(front.planned_seconds);
    expect(zone?.bucket_mm).toBeNull();
    expect(zone?.math['range_reason']).toBe('start_unknown');
    expect(budget(out, 'front_lawn').soil_due).toBe(true);
    expect(out.verdict).toBe('water');
    expect(out.snapshot.next_run_state).toBe('at');
  });

  it('the establishing refill closes the range: once it ran, the depletion is known', () => {
    const config = demo((raw) => {
      const zones = raw['zones'] as Record<string, Record<string, unknown>>;
      (zones['front_lawn'] as Record<string, unknown>)['max_run_minutes'] = 120;
    });
    const plan = zonePlan(computeIrrigation(input({ config })), 'front_lawn');
    expect(plan.session_capped).toBe(false);
    const ran = local(`${dateAt(0)}T05:00:00`);
    const out = computeIrrigation(
      input({
        config,
        runs: [run({ zone: 'front_lawn', start_epoch: ran, duration_s: plan.planned_seconds })],
      }),
    );
    const front = zonePlan(out, 'front_lawn');
    expect(front.depletion_mm).toBe(0);
    expect(front.depletion_range_mm).toBeNull();
    expect(front.planned_seconds).toBe(0);
    expect(out.snapshot.zones.find((z) => z.slug === 'front_lawn')?.bucket_mm).toBe(0);
  });

  it('binds the per-run ceiling when the depth needs more (cap_binding)', () => {
    const cfg = demo((raw) => {
      const zones = raw['zones'] as Record<string, Record<string, unknown>>;
      (zones['side_strip'] as Record<string, unknown>)['max_run_minutes'] = 10;
    });
    const out = computeIrrigation(input({ config: cfg }));
    const side = zonePlan(out, 'side_strip');
    expect(side.planned_seconds).toBe(600);
    expect(side.session_capped).toBe(true);
    expect(out.snapshot.zones.find((z) => z.slug === 'side_strip')?.math.cap_binding).toBe(true);
    expect(budget(out, 'side_strip').soil_ceiling_binding).toBe(true);
    // What the scheduler keeps of it for the run-cap tuning: the need before the cap, and the cap.
    expect(sessionPlanOf(out.snapshot, 'side_strip', 'sched-x', NOW)).toMatchObject({
      planned_seconds: 600,
      session_capped: true,
      max_run_minutes: 10,
      model: 'soil',
      uncapped_seconds: (side as unknown as { uncapped_seconds: number }).uncapped_seconds,
    });
    expect(sessionPlanOf(out.snapshot, 'side_strip', 'sched-x', NOW)?.uncapped_seconds).toBeGreaterThan(600);
  });

  it('shows the shortfall a binding ceiling leaves, in net mm, in the zone math and the plan (rule 6)', () => {
    const cfg = demo((raw) => {
      const zones = raw['zones'] as Record<string, Record<string, unknown>>;
      (zones['side_strip'] as Record<string, unknown>)['max_run_minutes'] = 10;
    });
    const out = computeIrrigation(input({ config: cfg }));
    const side = zonePlan(out, 'side_strip') as unknown as {
      uncapped_seconds: number;
      planned_seconds: number;
      cap_shortfall_mm: number;
    };
    const math = out.snapshot.zones.find((z) => z.slug === 'side_strip')?.math as Record<string, unknown>;
    const catalog = math['catalog'] as Record<string, { value: number }>;
    const rate = catalog['precip_rate_mm_hr']!.value;
    const efficiency = catalog['capture_efficiency']!.value;
    const expected = ((side.uncapped_seconds - 600) / 3600) * rate * efficiency;
    expect(expected).toBeGreaterThan(0);
    expect(side.cap_shortfall_mm).toBeCloseTo(expected, 2);
    expect(math['cap_shortfall_mm']).toBe(side.cap_shortfall_mm);
    // A zone the ceiling does not bind is short of nothing: a true 0.
    const unbound = out.snapshot.water_plan[0]!.zones.filter((z) => !z.session_capped);
    expect(unbound.length).toBeGreaterThan(0);
    for (const z of unbound) expect((z as unknown as { cap_shortfall_mm: number }).cap_shortfall_mm).toBe(0);
  });

  it('an unknown depletion interval straddling the trigger plans nothing', () => {
    const out = computeIrrigation(input());
    const shade = zonePlan(out, 'shade_bed');
    expect(shade.reason_code).toBe('depletion_unknown');
    expect(shade.planned_seconds).toBe(0);
    expect(shade.depletion_mm).toBeNull();
    const [lo, hi] = shade.depletion_range_mm as [number, number];
    expect(lo).toBeLessThan(shade.trigger_mm as number);
    expect(hi).toBeGreaterThanOrEqual(shade.trigger_mm as number);
  });

  it('no archive at all: every soil zone is unknown, nothing is planned', () => {
    const out = computeIrrigation(input({ forecast: forecast({ past_daily: [] }) }));
    for (const p of out.snapshot.water_plan[0]?.zones ?? []) {
      expect(p.planned_seconds).toBe(0);
      expect(p.reason_code).toBe('depletion_unknown');
    }
    expect(out.verdict).toBe('hold');
    // Later plan days may become due: dry forecast days push the lower bound up by ETc each day.
    const back = out.snapshot.water_plan.map(
      (d) => d.zones.find((z) => z.zone === 'front_lawn')?.depletion_range_mm?.[0] ?? 0,
    );
    expect(back[1] as number).toBeGreaterThan(back[0] as number);
  });
});

describe('missing rain evidence', () => {
  it('hourly forecast gone: the skip check is unknown on forward rules only; a due zone past its allowance waters anyway', () => {
    const out = computeIrrigation(input({ forecast: forecast({ hourly: [] }) }));
    expect(out.snapshot.skip_check['verdict']).toBe('unknown');
    expect(out.snapshot.skip_check.planning_forecast_unavailable).toContain('front_lawn');
    const front = zonePlan(out, 'front_lawn');
    // Nothing has proven the zone full: it may be past its allowance, so a forward rule cannot hold it.
    expect(front.planned_seconds).toBeGreaterThan(0);
    expect(front.water_need).toBe('due');
    expect(front.reason).toMatch(/the evidence cannot rule out a skip, but .* no bet on forecast rain/);
    expect(budget(out, 'front_lawn').forecast_credit_source).toBe('unavailable');
    expect(budget(out, 'front_lawn').forecast_credit_mm).toBe(0);
    expect(irrigationSnapshotSchema.safeParse(out.snapshot).success).toBe(true);
  });

  it('a gap later in the next 24 hours does not defer a due zone past its allowance: it waters, credit unavailable', () => {
    const gapFrom = NOW + 6 * HOUR;
    const hourly = hours(8).filter((h) => h.time_epoch < gapFrom || h.time_epoch >= gapFrom + 3 * HOUR);
    const out = computeIrrigation(input({ forecast: forecast({ hourly }) }));
    expect(out.snapshot.skip_check.planning_forecast_unavailable).toContain('front_lawn');
    const front = zonePlan(out, 'front_lawn');
    // Nothing has proven the root zone full: its depletion may lie past RAW, so it cannot afford to wait.
    expect(front.reason_code).toBe('establishing_refill');
    expect(front.reason).toMatch(/forecast rain evidence is incomplete, but .* no bet on forecast rain/);
    expect(front.planned_seconds).toBeGreaterThan(0);
    const b = budget(out, 'front_lawn');
    expect(b.soil_due).toBe(true);
    expect(b.soil_deferred_kind).toBeNull();
    expect(b.forecast_credit_source).toBe('unavailable');
    expect(b.forecast_credit_mm).toBe(0);
  });
});

describe('zones', () => {
  it('a zone missing species is zone_incomplete and says which field', () => {
    const cfg = demo((raw) => {
      const zones = raw['zones'] as Record<string, Record<string, unknown>>;
      delete (zones['front_lawn'] as Record<string, unknown>)['species'];
    });
    const out = computeIrrigation(input({ config: cfg }));
    for (const day of out.snapshot.water_plan) {
      const z = day.zones.find((x) => x.zone === 'front_lawn');
      expect(z?.reason_code).toBe('zone_incomplete');
      expect(z?.planned_seconds).toBe(0);
      expect(z?.reason).toContain('species');
    }
    expect(out.snapshot.zones.find((z) => z.slug === 'front_lawn')?.bucket_mm).toBeNull();
    expect(budget(out, 'front_lawn').soil_depletion_mm).toBeNull();
    expect(irrigationSnapshotSchema.safeParse(out.snapshot).success).toBe(true);
  });

  it('a zone reported running is shown, planning unaffected', () => {
    const running = new Map([
      ['front_lawn', { running: true, running_known: true, observed_epoch: NOW - 30 }],
    ]);
    const a = computeIrrigation(input());
    const b = computeIrrigation(input({ zoneRunning: running }));
    const zone = b.snapshot.zones.find((z) => z.slug === 'front_lawn');
    expect(zone?.running).toBe(true);
    expect(zone?.running_known).toBe(true);
    expect(zone?.running_observed_epoch).toBe(NOW - 30);
    expect(b.snapshot.water_plan).toEqual(a.snapshot.water_plan);
  });
});

describe('applied water', () => {
  const yesterday = local(`${dateAt(-1)}T05:00:00`);

  it('dry-run and skip rows are not applied water', () => {
    const base = computeIrrigation(input());
    const out = computeIrrigation(
      input({
        runs: [
          run({ zone: 'front_lawn', start_epoch: yesterday, duration_s: 3600, source: 'dry_run' }),
          run({ zone: 'front_lawn', start_epoch: yesterday, duration_s: 3600, source: 'dry_run:abc' }),
          run({
            zone: 'front_lawn',
            start_epoch: yesterday,
            duration_s: 0,
            source: 'smart_morning',
            status: 'skipped',
            skip_reason: 'rain',
          }),
          run({ zone: 'front_lawn', start_epoch: yesterday, duration_s: 3600, status: 'aborted' }),
        ],
      }),
    );
    expect(budget(out, 'front_lawn').applied_mm).toBe(0);
    expect(zonePlan(out, 'front_lawn')).toEqual(zonePlan(base, 'front_lawn'));
    expect(out.snapshot.zones.find((z) => z.slug === 'front_lawn')?.last_run_epoch).toBe(0);
  });

  it('two overlapping completed runs count once (union of valve-open intervals)', () => {
    // Rotor catalog rate for the front lawn; [05:00, 05:30) and [05:15, 05:45) = 45 min open.
    const out = computeIrrigation(
      input({
        runs: [
          run({ zone: 'front_lawn', start_epoch: yesterday, duration_s: 1800, source: 'manual' }),
          run({ zone: 'front_lawn', start_epoch: yesterday + 900, duration_s: 1800, source: 'ha_refresher' }),
        ],
      }),
    );
    const rate = out.snapshot.zones.find((z) => z.slug === 'front_lawn')?.throughput_mm_hr as number;
    expect(budget(out, 'front_lawn').applied_mm).toBeCloseTo(0.75 * rate, 2);
    expect(out.snapshot.zones.find((z) => z.slug === 'front_lawn')?.last_run_epoch).toBe(yesterday);
    expect(out.snapshot.skip_check.watered_days).toEqual([dateAt(-1)]);
  });

  it('unionIntervals merges overlaps and touching intervals; ledger splits at local midnight', () => {
    expect(
      unionIntervals([
        [10, 20],
        [15, 30],
        [30, 40],
        [50, 60],
      ]),
    ).toEqual([
      [10, 40],
      [50, 60],
    ]);
    const cal = localCalendar(TZ, NOW);
    const midnight = local(`${dateAt(0)}T00:00:00`);
    const l = zoneLedger('z', [run({ zone: 'z', start_epoch: midnight - 600, duration_s: 1200 })], cal);
    expect(l.seconds_by_date.get(dateAt(-1))).toBe(600);
    expect(l.seconds_by_date.get(dateAt(0))).toBe(600);
  });

  it('water already applied today is not planned again', () => {
    const earlier = local(`${dateAt(0)}T05:00:00`);
    const out = computeIrrigation(
      input({ runs: [run({ zone: 'front_lawn', start_epoch: earlier, duration_s: 3 * 3600 })] }),
    );
    const front = zonePlan(out, 'front_lawn');
    expect(front.planned_seconds).toBe(0);
    expect(front.depletion_mm).toBe(0);
  });
});

describe('controls', () => {
  it('a pause holds every zone with source pause', () => {
    const out = computeIrrigation(input({ controls: controls({ pause_until_epoch: NOW + 3 * 86400 }) }));
    for (const z of out.snapshot.water_plan[0]?.zones ?? []) {
      expect(z.planned_seconds).toBe(0);
      expect(z.reason_code).toBe('paused');
      expect(z['control_source']).toBe('pause');
    }
    expect(out.snapshot.pause_until_epoch).toBe(NOW + 3 * 86400);
    expect(out.snapshot.skip_check.is_paused).toBe(true);
    expect(out.verdict).toBe('paused');
    expect(explainVerdict(out)).toMatch(/control/);
  });

  it('zone and global overrides beat the engine; the zone override beats the global one', () => {
    const out = computeIrrigation(
      input({ controls: controls({ global_override: 'run', zone_overrides: { front_lawn: 'skip' } }) }),
    );
    const front = zonePlan(out, 'front_lawn');
    expect(front.reason_code).toBe('zone_override_skip');
    expect(front.planned_seconds).toBe(0);
    // shade_bed's depletion is unknown: the forced run refills only the proven lower bound.
    const shade = zonePlan(out, 'shade_bed');
    expect(shade.reason_code).toBe('global_override_run');
    expect(shade.planned_seconds).toBeGreaterThan(0);
    expect(shade['control_source']).toBe('global_override');
  });

  it('override tomorrow skips tomorrow only and shows in the snapshot', () => {
    const base = computeIrrigation(input());
    const out = computeIrrigation(
      input({ controls: controls({ override_tomorrow: 'skip', override_tomorrow_date: dateAt(1) }) }),
    );
    expect(out.snapshot.override_tomorrow).toBe('skip');
    for (const z of out.snapshot.water_plan[1]?.zones ?? [])
      expect(z.reason_code).toBe('override_tomorrow_skip');
    expect(zonePlan(out, 'front_lawn', 0)).toEqual(zonePlan(base, 'front_lawn', 0));
  });
});

describe('weekly model', () => {
  it.each([1, 2, 3, 4, 5, 6, 7])('sessions_per_week %i waters on sessionDays(n) of the plan', (n) => {
    const cfg = demo((raw) => {
      raw['zones'] = {
        lawn: {
          species: 'other',
          soil_texture: 'loam',
          precip_rate_mm_hr: 20,
          max_run_minutes: 360,
          scheduling_model: 'weekly',
          weekly_budget_in: 1.0,
          sessions_per_week: n,
        },
      };
    });
    // 10 forecast days, so the last plan day's 3-day look-ahead is complete.
    const out = computeIrrigation(
      input({ config: cfg, forecast: forecast({ daily: Array.from({ length: 10 }, (_, i) => day(i)) }) }),
    );
    const watered = out.snapshot.water_plan
      .filter((d) => (d.zones[0]?.planned_seconds ?? 0) > 0)
      .map((d) => d.day_offset);
    expect(watered).toEqual(sessionDays(n));
    // 25.4 mm gross / n sessions at 20 mm/h: 4572 / n seconds.
    expect(zonePlan(out, 'lawn').planned_seconds).toBe(Math.round(4572 / n));
    const b = budget(out, 'lawn');
    expect(b.scheduling_model).toBe('weekly');
    expect(b.needed_mm).toBeCloseTo(25.4, 2);
    expect(b.remaining_sessions).toBe(n);
    expect(b.observed_rain_source).toBe('model_archive');
    expect(irrigationSnapshotSchema.safeParse(out.snapshot).success).toBe(true);
  });
});

describe('engine.session_rain_defer_in', () => {
  it('defers a session on a day forecast to get at least that much rain, and not below it', () => {
    const cfg = demo((raw) => {
      raw['zones'] = {
        lawn: {
          species: 'other',
          soil_texture: 'loam',
          precip_rate_mm_hr: 20,
          max_run_minutes: 360,
          scheduling_model: 'weekly',
          weekly_budget_in: 1.0,
          sessions_per_week: 7,
        },
      };
    });
    // Day 2 gets 0.12 in (>= 0.10, below rain_skip_in 0.25); day 4 gets 0.09 in (below 0.10).
    const daily = Array.from({ length: 10 }, (_, i) =>
      day(i, i === 2 ? { precip_sum_in: 0.12 } : i === 4 ? { precip_sum_in: 0.09 } : {}),
    );
    const out = computeIrrigation(input({ config: cfg, forecast: forecast({ daily }) }));
    expect(zonePlan(out, 'lawn', 2)).toMatchObject({
      planned_seconds: 0,
      reason_code: 'session_rain_deferred',
    });
    expect(zonePlan(out, 'lawn', 2).reason).toContain('0.12 in');
    expect(zonePlan(out, 'lawn', 4).reason_code).not.toBe('session_rain_deferred');
  });
});
