import type { SeasonLine } from '../../server/src/season/season-runner';
import { scoreSeason } from '../../server/src/season/score/score';
import { unstressedSeason } from '../../server/src/season/score/unstressed';
import type { WthDay } from '../../server/src/season/wth';

/**
 * Stress is scored against the zone's unstressed demand (score/unstressed.ts):
 * a zone left dry keeps depleting at Kc x ET0 there, while the engine's ledger
 * slows with Ks past RAW and would hide the stress.
 */

const SITE = { latitude_deg: 40, elevation_m: 1400 };

function line(date: string, over: Partial<SeasonLine>): SeasonLine {
  return {
    date,
    zone: 'lawn',
    taw_mm: 20,
    raw_mm: 10,
    kc: 1,
    sun_factor: 1,
    ks: 1,
    et0_mm: 5,
    et0_method: 'penman_monteith',
    etc_mm: 5,
    rain_mm: 0,
    rain_source: 'gauge',
    rain_credited_mm: 0,
    irrigation_seconds: 0,
    irrigation_gross_mm: 0,
    irrigation_net_mm: 0,
    irrigation_evidence: 'none',
    drainage_mm: 0,
    start_depletion_mm: 0,
    start_depletion_range_mm: null,
    depletion_mm: 0,
    depletion_range_mm: null,
    range_reason: null,
    reason_code: 'not_due',
    planned_seconds: 0,
    session_capped: false,
    reason: '',
    forecast_credit_mm: 0,
    forecast_credit_source: 'none',
    allowance_mm: null,
    ...over,
  };
}

const dates = Array.from({ length: 10 }, (_, i) => `2022-07-${String(i + 1).padStart(2, '0')}`);

/** The ledger as the engine keeps it for a zone never watered: Ks slows it past RAW (10 mm). */
function dryZone(): SeasonLine[] {
  let d = 0;
  return dates.map((date) => {
    const start = d;
    const ks = d <= 10 ? 1 : (20 - d) / 10;
    d = Math.min(20, d + ks * 5);
    return line(date, { start_depletion_mm: start, depletion_mm: d, ks, etc_mm: ks * 5 });
  });
}

describe('unstressed scoring', () => {
  it('a zone left dry counts every day past RAW at full demand', () => {
    const [score] = scoreSeason(dryZone(), [], SITE, 0);
    // Unstressed: 0, 5, 10, 15, 20, 20, ... : 7 days start beyond RAW + 0.5.
    expect(score?.stress_days).toBe(7);
    expect(score?.ledger_stress_days).toBe(7);
  });

  it('counts the stress a ledger that lost track of the day (a range from RAW down) does not', () => {
    const lines = dryZone().map((l, i) =>
      i >= 3 ? { ...l, start_depletion_mm: null, start_depletion_range_mm: [9, 20] as [number, number] } : l,
    );
    const [score] = scoreSeason(lines, [], SITE, 0);
    expect(score?.ledger_stress_days).toBe(0);
    expect(score?.stress_days).toBe(7);
  });

  it('takes the water the engine applied and the rain it credited', () => {
    const lines = dryZone().map((l, i) => (i === 3 ? { ...l, irrigation_net_mm: 15 } : l));
    const days = unstressedSeason(lines, new Map(), SITE);
    expect(days.map((d) => d.start_depletion_mm)).toEqual([0, 5, 10, 15, 5, 10, 15, 20, 20, 20]);
    const capped = dryZone().map((l, i) => (i === 2 ? { ...l, rain_mm: 30, rain_credited_mm: 12 } : l));
    expect(unstressedSeason(capped, new Map(), SITE)[3]?.start_depletion_mm).toBe(5);
  });

  it("on a day the engine did not know the rain, the measured truth's rain counts", () => {
    const lines = dryZone().map((l, i) =>
      i === 2 ? { ...l, rain_mm: null, rain_credited_mm: null, rain_source: 'none' } : l,
    );
    const truth = new Map<string, WthDay>([
      [
        dates[2] as string,
        {
          date: dates[2] as string,
          srad_mj_m2: null,
          tmax_c: null,
          tmin_c: null,
          vapr_kpa: null,
          tdew_c: null,
          rh_max_pct: null,
          rh_min_pct: null,
          wind_2m_ms: null,
          rain_mm: 25,
          etref_mm: null,
          measured: true,
        },
      ],
    ]);
    expect(unstressedSeason(lines, truth, SITE)[3]?.start_depletion_mm).toBe(5);
  });
});
