import type { Et0Method } from '../../agronomy/et0';
import type { RaincheckConfig } from '../../config/schema';
import type { RunRecord } from '../../store/runs';
import type { SoilLedgerRow } from '../../store/soil-ledger';
import type { Store } from '../../store/store';
import type { DailyWeather } from '../../store/weather-days';
import { resolveZones, type ResolvedZone } from '../engine/zone-inputs';
import { DAYS_RULES } from '../history/query';
import { DAY_S } from '../history/window';
import { addLocalDays, localDateOf } from '../schedule/local-date';
import { et0OfRecord } from '../soil/et0-of-day';
import { closingRange } from './cap-short';
import type {
  MeteredRun,
  SoilLedgerDay,
  TuningEvidenceProviders,
  TuningWindow,
  WeatherRecordDay,
  ZoneDecisionDay,
  ZoneEvidence,
} from './evidence';

/**
 * Fills each zone's evidence bundle from the store (one read per table for
 * all zones) and the ledger providers. The only impure part of tuning.
 */

/** Spec 8: tuning `days` default 14, clamp 7..30 (also `window_days` on apply). */
const TUNING_DAYS = DAYS_RULES.tuning;

export function clampWindowDays(days: number | undefined): number {
  if (days === undefined) return TUNING_DAYS.fallback;
  return Math.min(TUNING_DAYS.max, Math.max(TUNING_DAYS.min, days));
}

export function tuningWindow(nowEpoch: number, days: number, timezone: string): TuningWindow {
  const today = localDateOf(nowEpoch, timezone);
  return {
    days,
    from_epoch: nowEpoch - days * DAY_S,
    to_epoch: nowEpoch,
    timezone,
    first_date: addLocalDays(today, -days, timezone),
    last_date: addLocalDays(today, -1, timezone),
  };
}

/** The providers of a store: its soil ledger and daily weather record (main.ts wires these). */
export function storeEvidenceProviders(store: Store): Required<TuningEvidenceProviders> {
  return {
    soilLedger: (zone, from, to) => store.soilLedger.range(zone, from, to),
    weatherRecord: (from, to) => store.weatherDays.range(from, to),
  };
}

export function gatherEvidence(
  store: Store,
  config: RaincheckConfig,
  window: TuningWindow,
  providers: TuningEvidenceProviders = {},
): ZoneEvidence[] {
  const { from_epoch: from, to_epoch: to, first_date: first, last_date: last } = window;
  const runs = store.runs.listWindow(from, to);
  const sessions = store.sessionPlans.listWindow(from, to);
  const daily = store.decisions.listDaily(from, to);
  const record = providers.weatherRecord?.(first, last) ?? null;
  const weatherRecord = record ? recordDays(record, config) : null;
  const resolved = resolveZones(config);
  const site = {
    lat: config.deployment.location.lat,
    capture_efficiency: config.engine.capture_efficiency,
  };
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
    const mine = runs.filter((r) => r.zone === slug);
    const soil = providers.soilLedger?.(slug, first, last) ?? null;
    return {
      slug,
      display_name: zone.display_name ?? slug,
      zone,
      resolved: resolved.find((z) => z.slug === slug) as ResolvedZone, // every zone of the config resolves
      model: zone.scheduling_model ?? config.engine.scheduling_model ?? 'soil',
      site,
      window,
      runs: mine,
      sessions: sessions.filter((s) => s.zone === slug),
      decisions,
      meteredRuns: meteredRuns(mine),
      soilLedger: soil ? soil.map(ledgerDay) : null,
      weatherRecord,
    };
  });
}

/** Completed rows a flow meter measured (evidence `metered`, with a volume). */
function meteredRuns(runs: readonly RunRecord[]): MeteredRun[] {
  return runs.flatMap((r) =>
    r.status === 'completed' && r.evidence === 'metered' && r.volume_gal !== null && r.volume_gal > 0
      ? [
          {
            session_id: r.session_id,
            start_epoch: r.start_epoch,
            duration_s: r.duration_s,
            volume_gal: r.volume_gal,
            mean_flow_gpm: r.mean_flow_gpm ?? null,
          },
        ]
      : [],
  );
}

function ledgerDay(row: SoilLedgerRow): SoilLedgerDay {
  const anchor = row.detail.anchor;
  return {
    date_local: row.date_local,
    taw_mm: row.taw_mm,
    raw_mm: row.raw_mm,
    etc_potential_mm: row.detail.etc_potential_mm,
    etc_mm: row.etc_mm,
    rain_mm: row.rain_mm,
    rain_credited_mm: row.rain_credited_mm,
    irrigation_seconds: row.irrigation_seconds,
    irrigation_net_mm: row.irrigation_net_mm,
    start_range_mm: row.detail.start_range_mm,
    closing_range_mm: closingRange(row),
    probe_depletion_mm:
      anchor?.source === 'probe' ? (anchor.probe_depletion_mm ?? anchor.depletion_mm) : null,
  };
}

/** The record's days with the ET0 the engine computes from them (its method, the site). */
function recordDays(days: readonly DailyWeather[], config: RaincheckConfig): WeatherRecordDay[] {
  const method = config.engine.et0_method as Et0Method;
  const site = {
    lat: config.deployment.location.lat,
    elevation_m: config.deployment.location.elevation_m ?? null,
  };
  return days.map((day) => ({
    date_local: day.date_local,
    et0_mm: et0OfRecord(day, day.date_local, method, site).et0_mm,
    rain_mm: day.rain_mm,
  }));
}
