import type { AppliedConfig } from '../../config/config-types';
import type { Store } from '../../store/store';
import { ControlsStore } from '../controls/controls-store';
import { DEFAULT_SKIP_RULES } from '../skip/rules';

/**
 * The rain depth that makes a day wet for the accuracy score: the threshold
 * the skip check uses today, `rain_skip_in` (a threshold control set with the
 * `set_threshold` action, else engine.skip_rules, else the 0.25 in default).
 */
export function effectiveRainThresholdIn(
  store: Store,
  applied: AppliedConfig | null,
  timezone: string,
): number {
  const control = new ControlsStore(store.controls, timezone).load().thresholds.rain_skip_in;
  return control ?? applied?.config.engine.skip_rules.rain_skip_in ?? DEFAULT_SKIP_RULES.rain_skip_in;
}
