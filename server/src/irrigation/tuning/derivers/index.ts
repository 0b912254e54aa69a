import type { Deriver } from '../recommendation';
import { allowedDepletionDeriver } from './allowed-depletion';
import { maxRunMinutesDeriver } from './max-run-minutes';
import { precipRateDeriver } from './precip-rate';
import { rainCreditCapDeriver } from './rain-credit-cap';
import { rootDepthDeriver } from './root-depth';
import { sessionsPerWeekDeriver } from './sessions-per-week';
import { soilTextureDeriver } from './soil-texture';
import { weeklyBudgetDeriver } from './weekly-budget';

/**
 * Every recommendation deriver, in priority order: a zone shows at most one
 * recommendation, the first that derives and is not silenced. What the
 * others rest on comes first, so fixing it may settle them:
 * 1. the sprinkler rate (every run length is computed from it);
 * 2. the soil the probe measures: root depth, then allowed depletion, then
 *    texture (the bucket every soil decision and the rain cap rest on);
 * 3. the rain credit cap (what rain counts);
 * 4. the weekly budget (what the weekly model waters for);
 * 5. the run cap, then the weekly sessions (how the water is delivered).
 */
export const DERIVERS: readonly Deriver[] = [
  precipRateDeriver,
  rootDepthDeriver,
  allowedDepletionDeriver,
  soilTextureDeriver,
  rainCreditCapDeriver,
  weeklyBudgetDeriver,
  maxRunMinutesDeriver,
  sessionsPerWeekDeriver,
];
