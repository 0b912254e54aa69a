import type { Deriver } from '../recommendation';
import {
  madDeriver,
  precipRateDeriver,
  rainCreditCapDeriver,
  rootDepthDeriver,
  soilTextureDeriver,
  weeklyBudgetDeriver,
} from './awaiting-evidence';
import { maxRunMinutesDeriver } from './max-run-minutes';
import { sessionsPerWeekDeriver } from './sessions-per-week';

/**
 * Every recommendation deriver, in priority order: a zone shows at most one
 * recommendation, the first that derives and is not silenced. Measured
 * hardware facts come before the schedule built on them (a wrong sprinkler
 * rate makes every run length wrong), then the run cap, then the weekly
 * schedule and the soil model's parameters.
 */
export const DERIVERS: readonly Deriver[] = [
  precipRateDeriver,
  maxRunMinutesDeriver,
  sessionsPerWeekDeriver,
  weeklyBudgetDeriver,
  rainCreditCapDeriver,
  rootDepthDeriver,
  madDeriver,
  soilTextureDeriver,
];
