import { computeIrrigation } from '../../../server/src/irrigation/engine/engine';
import { explainVerdict } from '../../../server/src/irrigation/engine/explain';
import { irrigationSnapshotSchema } from '../../../server/src/irrigation/snapshot-schema';
import { dateAt, day, demo, forecast, input, local, run } from './fixtures';

/**
 * A scripted 30-day season for one zone, checked against hand arithmetic.
 *
 * Zone "plot": species `other` (flat Kc 0.70, no dormancy), loam
 * (FC 0.25, WP 0.12 -> 130 mm/m), root depth 200 mm, MAD 50 %, full sun,
 * 20 mm/h, rain cap 5 in (127 mm), max run 120 min. ET0 by `source_native`
 * (the provider's 0.2 in = 5.08 mm every day).
 *
 *   TAW = 130 x 0.200 = 26 mm; RAW = 0.5 x 26 = 13 mm
 *   ETc = 0.70 x 5.08 = 3.556 mm/day
 *   net irrigation of 1800 s = 0.5 h x 20 mm/h x 0.7 = 7 mm
 *
 * Script (offsets from today; D = end-of-day depletion, clamp to [0, 26]):
 *   -30  3.0 in archive rain (76.2 mm): start unknown [0, 26];
 *        lo = max(0, 0 - 76.2 + 3.556) = 0, hi = max(0, 26 - 76.2 + 3.556) = 0 -> exact D = 0
 *   -29..-23 dry (7 days): D = 7 x 3.556 = 24.892
 *   -22  dry: 24.892 + 3.556 = 28.448 -> 26 (clamped)
 *   -21  gauge 0.5 in (12.7 mm; the archive says 0, the gauge wins): D = 26 - 12.7 + 3.556 = 16.856
 *   -20..-11 dry: 20.412, 23.968, 26 (clamped) ... 26
 *   -10  irrigation 05:00 for 1800 s (a manual row and the observed ha_refresher row overlap
 *        exactly: union = 1800 s; a dry_run row the same morning is ignored): D = 26 - 7 + 3.556 = 22.556
 *   -9   2.0 in (50.8 mm): 22.556 - 50.8 + 3.556 < 0 -> 0
 *   -8..-4 dry: 3.556 x 5 = 17.78
 *   -3   2.0 in: 17.78 - 50.8 + 3.556 < 0 -> 0
 *   -2, -1 dry: 7.112  -> start of today: 7.112 (< RAW 13: not due)
 * Projection on the (dry) forecast:
 *   day 0 start 7.112 (not due); day 1 start 10.668 (not due);
 *   day 2 start 14.224 >= 13 -> due: seconds = round(14.224 / (20 x 0.7) x 3600) = round(3657.6) = 3658
 */
describe('30-day season, hand-computed', () => {
  const rainIn: Record<number, number> = { [-30]: 3, [-9]: 2, [-3]: 2 };
  const past = Array.from({ length: 30 }, (_, i) => {
    const offset = i - 30;
    return day(offset, { precip_sum_in: rainIn[offset] ?? 0, et0_in: 0.2, et0_reported: true });
  });
  const cfg = demo((raw) => {
    raw['zones'] = {
      plot: {
        display_name: 'Plot',
        species: 'other',
        soil_texture: 'loam',
        root_depth_mm: 200,
        mad_pct_override: 50,
        sun_exposure: 'full',
        precip_rate_mm_hr: 20,
        rain_credit_cap_in: 5,
        max_run_minutes: 120,
      },
    };
    (raw['engine'] as Record<string, unknown>)['et0_method'] = 'source_native';
  });
  const irrigation = local(`${dateAt(-10)}T05:00:00`);
  const out = computeIrrigation(
    input({
      config: cfg,
      forecast: forecast({ past_daily: past, daily: Array.from({ length: 10 }, (_, i) => day(i)) }),
      gaugeDailyRain: new Map([[dateAt(-21), 0.5]]),
      runs: [
        run({ zone: 'plot', start_epoch: irrigation, duration_s: 1800, source: 'manual:req1' }),
        run({ zone: 'plot', start_epoch: irrigation, duration_s: 1800, source: 'ha_refresher' }),
        run({ zone: 'plot', start_epoch: irrigation, duration_s: 1800, source: 'dry_run' }),
      ],
    }),
  );
  const trace = (out.snapshot.decision_trace as Record<string, unknown>)['zones'] as Record<
    string,
    {
      steps: {
        date_local: string;
        kind: string;
        depletion_mm: number | null;
        et0_method: string | null;
        kc: number;
      }[];
    }
  >;
  const steps = trace['plot']?.steps ?? [];
  const endOf = (offset: number) => steps.find((s) => s.date_local === dateAt(offset) && s.kind === 'past');

  it('validates', () => {
    expect(irrigationSnapshotSchema.safeParse(out.snapshot).success).toBe(true);
  });

  it.each([
    [-30, 0],
    [-23, 24.892],
    [-22, 26],
    [-21, 16.856],
    [-20, 20.412],
    [-11, 26],
    [-10, 22.556],
    [-9, 0],
    [-4, 17.78],
    [-3, 0],
    [-1, 7.112],
  ])('end of day %i: depletion %f mm', (offset, expected) => {
    expect(endOf(offset)?.depletion_mm).toBeCloseTo(expected, 2);
  });

  it('records the ET0 method and Kc per day', () => {
    expect(endOf(-5)?.et0_method).toBe('source_native');
    expect(endOf(-5)?.kc).toBe(0.7);
  });

  it('today: 7.11 mm, not due; due on plan day 2 with 3658 s', () => {
    const b = out.snapshot.water_budgets[0];
    expect(b?.soil_depletion_mm).toBeCloseTo(7.11, 2);
    expect(b?.soil_taw_mm).toBe(26);
    expect(b?.soil_raw_mm).toBe(13);
    expect(b?.soil_due).toBe(false);
    // The run of day -10 is outside the trailing 7 days of the budget row (it counted in the replay above).
    expect(b?.applied_mm).toBe(0);
    expect(out.snapshot.zones[0]?.bucket_mm).toBeCloseTo(-7.11, 2);
    const plan = out.snapshot.water_plan.map((d) => d.zones[0]);
    expect(plan.slice(0, 3).map((z) => z?.reason_code)).toEqual(['not_due', 'not_due', 'water']);
    expect(plan[1]?.depletion_mm).toBeCloseTo(10.668, 2);
    expect(plan[2]?.depletion_mm).toBeCloseTo(14.224, 2);
    expect(plan[2]?.planned_seconds).toBe(3658);
    expect(out.snapshot.next_run_state).toBe('at');
    expect(out.snapshot.next_run_day_offset).toBe(2);
    expect(out.snapshot.next_run_total_minutes).toBe(61);
  });

  it('explains today with the deciding rule', () => {
    const text = explainVerdict(out);
    expect(text).toContain('Verdict for');
    expect(text).toContain('none');
    expect(text).toMatch(/below the trigger/);
    expect(explainVerdict(out)).toBe(text);
  });
});
