import { FIELD_SPECS, WEATHER_FIELDS, type WeatherField } from './fields';
import type { Reading } from './source';
import { compareText } from '../core/compare';

/**
 * Per-field ownership (pure). Each field is owned by one source at a time: a
 * pin (`engine.overrides`) when the pinned source is live, else the first live
 * source of the field's chain (`engine.field_source_chains`), else the highest
 * priority live source. A reading is live while younger than its field's
 * max age; a field nobody has live is absent (null in the snapshot).
 */

export interface MergeSource {
  id: string;
  priority: number;
  /**
   * A floor under every field's max age for this source: a provider that
   * publishes hourly (NWS) is as fresh as it can be for about an hour.
   */
  minLiveS?: number;
  /** Latest reading per field, whatever its age. */
  readings: ReadonlyMap<WeatherField, Reading>;
}

export interface MergeRules {
  overrides: Readonly<Record<string, string>>;
  chains: Readonly<Record<string, readonly string[]>>;
}

/** Why the owner was chosen, as `current_weather[].selection_reason` reports it. */
export type SelectionReason = 'pinned' | 'chain' | 'priority' | 'fallthrough';

export interface Selection {
  field: WeatherField;
  value: number;
  sourceId: string;
  observedEpoch: number;
  maxAgeS: number;
  reason: SelectionReason;
}

/** A device clock a little ahead of ours is tolerated; a reading from far in the future is not live. */
export const FUTURE_TOLERANCE_S = 300;

/** An observation time further ahead of now than a skewed device clock explains: not evidence of anything yet. */
export function isFarFuture(epoch: number, nowEpoch: number): boolean {
  return epoch - nowEpoch > FUTURE_TOLERANCE_S;
}

export function maxAgeFor(field: WeatherField, source?: Pick<MergeSource, 'minLiveS'>): number {
  return Math.max(FIELD_SPECS[field].maxAgeS, source?.minLiveS ?? 0);
}

export function isLive(
  reading: Reading | undefined,
  nowEpoch: number,
  source?: Pick<MergeSource, 'minLiveS'>,
): reading is Reading & { value: number } {
  if (!reading || reading.value === null || !Number.isFinite(reading.value)) return false;
  const age = nowEpoch - reading.observedEpoch;
  return age <= maxAgeFor(reading.field, source) && age >= -FUTURE_TOLERANCE_S;
}

export function mergeFields(
  sources: readonly MergeSource[],
  rules: MergeRules,
  nowEpoch: number,
): Map<WeatherField, Selection> {
  const byPriority = [...sources].sort((a, b) => b.priority - a.priority || compareText(a.id, b.id));
  const byId = new Map(sources.map((s) => [s.id, s]));
  const selections = new Map<WeatherField, Selection>();
  for (const field of WEATHER_FIELDS) {
    const chosen = choose(field, byPriority, byId, rules, nowEpoch);
    if (chosen) selections.set(field, chosen);
  }
  return selections;
}

function choose(
  field: WeatherField,
  byPriority: readonly MergeSource[],
  byId: ReadonlyMap<string, MergeSource>,
  rules: MergeRules,
  nowEpoch: number,
): Selection | null {
  const pinned = rules.overrides[field];
  const pinnedSource = pinned === undefined ? undefined : byId.get(pinned);
  if (pinnedSource && isLive(pinnedSource.readings.get(field), nowEpoch, pinnedSource)) {
    return select(field, pinnedSource, 'pinned');
  }
  for (const id of rules.chains[field] ?? []) {
    const source = byId.get(id);
    if (source && isLive(source.readings.get(field), nowEpoch, source)) return select(field, source, 'chain');
  }
  const providers = byPriority.filter((s) => s.readings.has(field));
  const live = newestFirstWithinPriority(
    providers.filter((s) => isLive(s.readings.get(field), nowEpoch, s)),
    field,
  );
  const owner = live[0];
  if (!owner) return null;
  // A fall-through means a strictly higher priority provider is not live; an equal-priority tie won by age is not one.
  return select(field, owner, owner.priority === providers[0]?.priority ? 'priority' : 'fallthrough');
}

/** Equal priorities: the newer observation wins. */
function newestFirstWithinPriority(sources: MergeSource[], field: WeatherField): MergeSource[] {
  return sources.sort(
    (a, b) =>
      b.priority - a.priority ||
      (b.readings.get(field)?.observedEpoch ?? 0) - (a.readings.get(field)?.observedEpoch ?? 0) ||
      compareText(a.id, b.id),
  );
}

function select(field: WeatherField, source: MergeSource, reason: SelectionReason): Selection {
  const reading = source.readings.get(field) as Reading & { value: number };
  return {
    field,
    value: reading.value,
    sourceId: source.id,
    observedEpoch: reading.observedEpoch,
    maxAgeS: maxAgeFor(field, source),
    reason,
  };
}
