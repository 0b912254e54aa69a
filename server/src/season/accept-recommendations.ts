import type { Clock } from '../core/clock';
import { effectiveRainThresholdIn } from '../irrigation/history/rain-threshold';
import { clampWindowDays } from '../irrigation/tuning/evidence-source';
import { TuningError } from '../irrigation/tuning/tuning-error';
import { TuningService, type ApplyResult } from '../irrigation/tuning/tuning-service';
import type { Store } from '../store/store';
import type { SeasonConfig } from './season-config';

/**
 * `--accept-recommendations`: an owner who applies each tuning recommendation
 * on the day it appears. The report is the one GET /irrigation/tuning serves
 * (its default window), and each recommendation goes through
 * TuningService.apply, the function behind POST /config/zones/apply, with the
 * value it suggests: derived again inside the config write, validated,
 * companion fields included. One that no longer derives (409) is left.
 */

export interface AcceptedRecommendation {
  date: string;
  zone: string;
  field: string;
  old_value: ApplyResult['old_value'];
  new_value: ApplyResult['new_value'];
  recommendation_id: string;
}

export async function acceptRecommendations(deps: {
  store: Store;
  clock: Clock;
  config: SeasonConfig;
  timezone: string;
  date: string;
}): Promise<AcceptedRecommendation[]> {
  const { store, config, timezone } = deps;
  const tuning = new TuningService({
    store,
    clock: deps.clock,
    config,
    timezone: () => timezone,
    rainThresholdIn: () => effectiveRainThresholdIn(store, config.current, timezone),
    restartReasons: () => [],
    providers: {
      soilLedger: (zone, from, to) => store.soilLedger.range(zone, from, to),
      weatherRecord: (from, to) => store.weatherDays.range(from, to),
    },
  });
  const accepted: AcceptedRecommendation[] = [];
  for (const { zone, recommendation } of tuning.visibleRecommendations(clampWindowDays(undefined))) {
    try {
      const result = await tuning.apply({
        zone_slug: zone,
        recommendation_id: recommendation.id,
        field: recommendation.field,
        value: recommendation.suggested_value,
      });
      accepted.push({
        date: deps.date,
        zone,
        field: result.field,
        old_value: result.old_value,
        new_value: result.new_value,
        recommendation_id: recommendation.id,
      });
    } catch (err) {
      if (!(err instanceof TuningError && err.status === 409)) throw err;
    }
  }
  return accepted;
}
