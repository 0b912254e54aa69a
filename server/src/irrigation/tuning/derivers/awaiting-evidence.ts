import type { ZoneEvidence } from '../evidence';
import type { TunableField } from '../fields';
import type { Deriver, Derivation } from '../recommendation';

/**
 * Fields whose evidence this build does not record yet. Each answers
 * `insufficient` naming the missing source, so the tuning report says what
 * the zone is waiting for instead of guessing. The second pass replaces these
 * entries with real derivers once the sources exist:
 *
 * | field | evidence | from |
 * |---|---|---|
 * | precip_rate_mm_hr | metered run volumes and the zone's area | issue 17 (`meteredRuns`) |
 * | rain_credit_cap_in | rain the soil ledger or a probe shows did not all count | issue 15 (`soilLedger`) |
 * | weekly_budget_in | the weekly model against the ET record | issue 15 (`weatherRecord`) |
 * | root_depth_mm, mad_pct_override, soil_texture | a bound probe's drying and refill curves | issue 15 (`soilLedger` with probe readings) |
 */

type Source = (evidence: ZoneEvidence) => string | null;

/** Null when the zone does not use the field (the weekly budget on a soil zone). */
function awaiting(field: TunableField, label: string, source: Source): Deriver {
  return {
    field,
    derive(evidence: ZoneEvidence): Derivation {
      const missing = source(evidence);
      if (missing === null) return { outcome: 'not_applicable' };
      return { outcome: 'insufficient', waiting_for: missing, line: `${label}: waiting for ${missing}.` };
    },
  };
}

const meter: Source = () => 'metered run volumes from a flow meter';
const soilLedger: Source = () => 'the daily soil water ledger';
const etRecord: Source = (e) => (e.model === 'weekly' ? 'the daily weather record (ET0)' : null);
const probeCurves: Source = (e) =>
  e.zone.soil_sensor_id ? "the soil ledger's probe drying and refill curves" : 'a bound soil probe';

export const precipRateDeriver = awaiting('precip_rate_mm_hr', 'Sprinkler rate', meter);
export const rainCreditCapDeriver = awaiting('rain_credit_cap_in', 'Rain credit cap', soilLedger);
export const weeklyBudgetDeriver = awaiting('weekly_budget_in', 'Weekly budget', etRecord);
export const rootDepthDeriver = awaiting('root_depth_mm', 'Root depth', probeCurves);
export const madDeriver = awaiting('mad_pct_override', 'Allowed depletion', probeCurves);
export const soilTextureDeriver = awaiting('soil_texture', 'Soil texture', probeCurves);
