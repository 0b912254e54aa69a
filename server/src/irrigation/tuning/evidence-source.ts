import type { RaincheckConfig } from '../../config/schema';
import type { Store } from '../../store/store';
import { DAYS_RULES } from '../history/query';
import { DAY_S } from '../history/window';
import type { TuningEvidenceProviders, TuningWindow, ZoneDecisionDay, ZoneEvidence } from './evidence';

/**
 * Fills each zone's evidence bundle from the store (one read per table for
 * all zones) and the optional providers. The only impure part of tuning.
 */

/** Spec 8: tuning `days` default 14, clamp 7..30 (also `window_days` on apply). */
const TUNING_DAYS = DAYS_RULES.tuning;

export function clampWindowDays(days: number | undefined): number {
  if (days === undefined) return TUNING_DAYS.fallback;
  return Math.min(TUNING_DAYS.max, Math.max(TUNING_DAYS.min, days));
}

export function tuningWindow(nowEpoch: number, days: number, timezone: string): TuningWindow {
  return { days, from_epoch: nowEpoch - days * DAY_S, to_epoch: nowEpoch, timezone };
}

export function gatherEvidence(
  store: Store,
  config: RaincheckConfig,
  window: TuningWindow,
  providers: TuningEvidenceProviders = {},
): ZoneEvidence[] {
  const { from_epoch: from, to_epoch: to } = window;
  const runs = store.runs.listWindow(from, to);
  const sessions = store.sessionPlans.listWindow(from, to);
  const daily = store.decisions.listDaily(from, to);
  const weatherRecord = providers.weatherRecord?.(window) ?? null;
  return Object.entries(config.zones).map(([slug, zone]) => {
    const decisions: ZoneDecisionDay[] = daily.flatMap((d) =>
      d.zones
        .filter((z) => z.zone === slug)
        .map((z) => ({
          date_local: d.date_local,
          epoch: d.epoch,
          kind: d.kind,
          reason_code: z.reason_code,
          water_need: z.water_need,
          planned_seconds: z.planned_seconds,
        })),
    );
    return {
      slug,
      display_name: zone.display_name ?? slug,
      zone,
      model: zone.scheduling_model ?? config.engine.scheduling_model ?? 'soil',
      window,
      runs: runs.filter((r) => r.zone === slug),
      sessions: sessions.filter((s) => s.zone === slug),
      decisions,
      soilLedger: providers.soilLedger?.(slug, window) ?? null,
      weatherRecord,
      meteredRuns: providers.meteredRuns?.(slug, window) ?? null,
    };
  });
}
