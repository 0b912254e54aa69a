import type { SoilLedgerRow } from '../../../server/src/store/soil-ledger';
import { DateTime } from 'luxon';
import { zoneFor } from '../../../server/src/core/tz/zone';
import type { Store } from '../../../server/src/store/store';
import { MERGED_SOURCE_ID } from '../../../server/src/weather/weather-service';

/**
 * Recorded history written straight into a real store, the way the service
 * writes it: a scheduled session's plan (scheduler), its ledger rows
 * (dispatcher and observer), daily decisions and verdict changes (engine),
 * merged gauge readings (weather). Times are local to TZ.
 */

export const TZ = 'America/New_York';

export function localEpoch(date: string, hour = 5): number {
  return DateTime.fromISO(date, { zone: zoneFor(TZ) })
    .set({ hour })
    .toSeconds();
}

export function addDays(date: string, days: number): string {
  return DateTime.fromISO(date, { zone: zoneFor(TZ) })
    .plus({ days })
    .toISODate() as string;
}

export interface SessionSpec {
  zone: string;
  date: string;
  planned_s: number;
  /** What the zone needed before the cap (defaults to planned). */
  needed_s?: number;
  cap_min?: number;
  model?: 'soil' | 'weekly';
  /** `real`: completed watering rows; `dry`: dry-run rows; `failed`: a skipped row; `none`: no row. */
  ran?: 'real' | 'dry' | 'failed' | 'none';
  /** Split into this many cycle segments (each also seen by the observer). */
  cycles?: number;
}

/** A scheduled session as the scheduler, dispatcher and observer leave it. */
export function recordSession(store: Store, spec: SessionSpec): string {
  const sessionId = `sched-${spec.date}-${spec.zone}`;
  const start = localEpoch(spec.date);
  const needed = spec.needed_s ?? spec.planned_s;
  const cap = spec.cap_min ?? 60;
  store.sessionPlans.record({
    session_id: sessionId,
    zone: spec.zone,
    date_local: spec.date,
    epoch: start,
    model: spec.model ?? 'soil',
    planned_seconds: spec.planned_s,
    uncapped_seconds: needed,
    session_capped: needed > cap * 60,
    max_run_minutes: cap,
  });
  const ran = spec.ran ?? 'real';
  if (ran === 'none') return sessionId;
  if (ran === 'failed') {
    store.runs.insert(
      row(spec.zone, sessionId, start, 0, 'ha_refresher', 'skipped', 'dispatch_failed: timeout'),
    );
    return sessionId;
  }
  const cycles = spec.cycles ?? 1;
  const segment = Math.round(spec.planned_s / cycles);
  for (let i = 0; i < cycles; i += 1) {
    const at = start + i * (segment + 1800);
    const source = ran === 'dry' ? 'dry_run' : 'ha_refresher';
    store.runs.insert({
      ...row(spec.zone, sessionId, at, segment, source, 'completed', null),
      cycle_index: i + 1,
      cycle_count: cycles,
    });
    // The observer's hardware row of the same valve opening (joined to the session): union, not sum.
    if (ran === 'real')
      store.runs.insert(row(spec.zone, sessionId, at + 2, segment - 2, 'ha_refresher', 'completed', null));
  }
  return sessionId;
}

function row(
  zone: string,
  sessionId: string,
  start: number,
  duration: number,
  source: 'ha_refresher' | 'dry_run',
  status: 'completed' | 'skipped',
  skip: string | null,
) {
  return {
    session_id: sessionId,
    zone,
    start_epoch: start,
    duration_s: duration,
    skip_reason: skip,
    source,
    status,
    controller_id: 'os1',
    applied_mm: null,
    volume_gal: null,
    note: skip,
    cycle_index: null,
    cycle_count: null,
  };
}

/** One day's morning verdict (decision + verdict change) and, when known, the gauge's rain. */
export function recordDay(
  store: Store,
  date: string,
  verdict: { verdict: string; reason_code: string },
  rainIn: number | null,
): void {
  const morning = localEpoch(date, 5);
  store.decisions.upsertDaily({ date_local: date, epoch: morning, kind: verdict.verdict, zones: [] });
  store.decisions.insertTransition({
    epoch: morning,
    verdict: verdict.verdict,
    previous_verdict: null,
    reason: { reason_code: verdict.reason_code },
  });
  if (rainIn === null) return;
  const rows = [];
  for (let hour = 0; hour < 24; hour += 1) {
    rows.push({
      epoch: localEpoch(date, hour) + 1800,
      source_id: MERGED_SOURCE_ID,
      field: 'rain_in_today',
      value: (rainIn * (hour + 1)) / 24,
    });
  }
  store.readings.insertMany(rows);
}

/** A closed soil ledger day, as far as the run-cap rule reads it. */
export function ledgerRow(
  zoneSlug: string,
  date: string,
  d: { raw: number; depletion: number; seconds: number; net: number },
): SoilLedgerRow {
  return {
    zone: zoneSlug,
    date_local: date,
    taw_mm: 40,
    raw_mm: d.raw,
    et0_mm: 9,
    et0_method: 'source_native',
    kc: 0.8,
    ks: 1,
    etc_mm: 7.2,
    rain_mm: 0,
    rain_source: 'gauge',
    rain_credited_mm: 0,
    irrigation_seconds: d.seconds,
    irrigation_gross_mm: d.net / 0.7,
    irrigation_net_mm: d.net,
    irrigation_evidence: d.seconds > 0 ? 'observed' : 'none',
    irrigation_basis: d.seconds > 0 ? 'rate' : 'none',
    drainage_mm: 0,
    depletion_mm: d.depletion,
    depletion_range_mm: null,
    range_reason: null,
    detail: {
      range_since: null,
      start_range_mm: [d.depletion, d.depletion],
      after_water_range_mm: [0, 0],
      etc_potential_mm: 7.2,
      sun_factor: 1,
      et0_reason: 'test',
      et0_inputs: {},
      anchor: null,
    },
  };
}
