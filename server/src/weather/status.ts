import type { SourceHealth } from '../core/health';
import { isLive, type Selection } from './merge';
import type { WeatherField } from './fields';
import type { Reading } from './source';

/**
 * Source status (spec 3), computed from reachability plus live per-field
 * ownership, never from age alone. `falling_through` is reserved and never
 * asserted. Only `offline` marks the instance degraded.
 */

/** About 30 minutes without a successful fetch or an observation. */
export const HARD_OFFLINE_S = 1800;

export interface SourceActivity {
  id: string;
  kind: string;
  enabled: boolean;
  priority: number;
  lastContactOkEpoch: number | null;
  lastObservationEpoch: number | null;
  note: string | null;
  readings: ReadonlyMap<WeatherField, Reading>;
  minLiveS?: number;
}

export function sourceStatus(
  source: SourceActivity,
  all: readonly SourceActivity[],
  selections: ReadonlyMap<WeatherField, Selection>,
  nowEpoch: number,
): SourceHealth {
  const lastSeen = maxOrNull(source.lastContactOkEpoch, source.lastObservationEpoch);
  const row = (status: SourceHealth['status'], note: string | null): SourceHealth => ({
    id: source.id,
    kind: source.kind,
    enabled: source.enabled,
    last_seen_epoch: lastSeen,
    stale_for_s: lastSeen === null ? null : Math.max(0, nowEpoch - lastSeen),
    status,
    note,
  });
  if (!source.enabled) return row('offline', source.note ?? 'disabled in the config');
  if (lastSeen === null) return row('offline', source.note ?? 'never seen');
  if (nowEpoch - lastSeen > HARD_OFFLINE_S) return row('offline', source.note ?? 'no contact for 30 minutes');
  const owned = [...selections.values()].filter((s) => s.sourceId === source.id);
  if (owned.length > 0) return row('active', source.note);
  return row(heldByHigherPriority(source, all, selections, nowEpoch) ? 'standby' : 'watching', source.note);
}

/** It has live readings, and every field it could provide is owned by a strictly higher priority source. */
function heldByHigherPriority(
  source: SourceActivity,
  all: readonly SourceActivity[],
  selections: ReadonlyMap<WeatherField, Selection>,
  nowEpoch: number,
): boolean {
  const priorityOf = new Map(all.map((s) => [s.id, s.priority]));
  const liveFields = [...source.readings.values()]
    .filter((r) => isLive(r, nowEpoch, source))
    .map((r) => r.field);
  if (liveFields.length === 0) return false;
  return liveFields.every((field) => {
    const owner = selections.get(field);
    return owner !== undefined && (priorityOf.get(owner.sourceId) ?? -Infinity) > source.priority;
  });
}

function maxOrNull(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return Math.max(a, b);
}
