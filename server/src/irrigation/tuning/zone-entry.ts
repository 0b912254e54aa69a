import type { TuningDismissal } from '../../store/tuning-dismissals';
import { isWateringEvidence, unionIntervals } from '../engine/applied-water';
import { localDateOf } from '../schedule/local-date';
import { mutedLine, permanentFields, silencing } from './dismissals';
import type { ZoneEvidence } from './evidence';
import { DERIVERS } from './derivers/index';
import { withId, type Deriver, type Derivation, type Recommendation } from './recommendation';

/**
 * One zone of the tuning report (spec 2.5 "Zone entry"), pure:
 * - `lines`: what the window shows (watering), one line per deriver that
 *   could judge, what the others wait for, and last, when a recommendation is
 *   silenced, the muted annotation;
 * - `recommendation`: the first deriver's suggestion that is not silenced
 *   (at most one per zone);
 * - `status`: `recommendation`, else `ok` when a deriver judged the zone (or
 *   a suggestion is silenced), else `insufficient_data`;
 * - `dismissed`: a derived recommendation is silenced (the muted line says
 *   which); `dismissed_fields`: the fields silenced for the zone now
 *   (permanent ones, and the field of a snoozed suggestion).
 */

export type ZoneStatus = 'recommendation' | 'ok' | 'insufficient_data';

export interface ZoneEntry {
  slug: string;
  display_name: string;
  status: ZoneStatus;
  lines: string[];
  recommendation: Recommendation | null;
  dismissed: boolean;
  dismissed_fields: string[];
}

export interface ZoneDerivation {
  derivations: { deriver: Deriver; derivation: Derivation }[];
  /** Every suggestion that derives, in priority order, silenced or not. */
  candidates: Recommendation[];
}

export function deriveZone(evidence: ZoneEvidence, derivers: readonly Deriver[] = DERIVERS): ZoneDerivation {
  const derivations = derivers.map((deriver) => ({ deriver, derivation: deriver.derive(evidence) }));
  const candidates = derivations.flatMap(({ derivation }) =>
    derivation.outcome === 'suggest' ? [withId(evidence.slug, derivation.suggestion)] : [],
  );
  return { derivations, candidates };
}

export function zoneEntry(
  evidence: ZoneEvidence,
  derived: ZoneDerivation,
  dismissals: readonly TuningDismissal[],
  nowEpoch: number,
): ZoneEntry {
  const silenced = derived.candidates.flatMap((rec) => {
    const by = silencing(evidence.slug, rec, dismissals, nowEpoch);
    return by ? [{ rec, by }] : [];
  });
  const visible = derived.candidates.find((rec) => !silenced.some((s) => s.rec === rec)) ?? null;
  const judged = derived.derivations.some(
    ({ derivation }) => derivation.outcome === 'ok' || derivation.outcome === 'suggest',
  );
  const lines = [...activityLines(evidence), ...derivationLines(derived)];
  const muted = silenced.map((s) => mutedLine(s.rec, s.by, evidence.window.timezone));
  if (muted.length > 0) lines.push(muted.join(' '));
  const fields = new Set([
    ...permanentFields(evidence.slug, dismissals),
    ...silenced.map((s) => s.rec.field),
  ]);
  return {
    slug: evidence.slug,
    display_name: evidence.display_name,
    status: visible ? 'recommendation' : judged || silenced.length > 0 ? 'ok' : 'insufficient_data',
    lines,
    recommendation: visible,
    dismissed: silenced.length > 0,
    dismissed_fields: [...fields].sort(),
  };
}

/** The deriver lines; fields waiting for the same evidence share one line. */
function derivationLines(derived: ZoneDerivation): string[] {
  const lines: string[] = [];
  const waiting = new Map<string, { line: string; fields: string[] }>();
  for (const { deriver, derivation } of derived.derivations) {
    if (derivation.outcome === 'not_applicable') continue;
    if (derivation.outcome !== 'insufficient') {
      lines.push(derivation.line);
      continue;
    }
    const group = waiting.get(derivation.waiting_for);
    if (group) group.fields.push(deriver.field);
    else waiting.set(derivation.waiting_for, { line: derivation.line, fields: [deriver.field] });
  }
  for (const [source, group] of waiting) {
    lines.push(group.fields.length === 1 ? group.line : `Waiting for ${source}: ${group.fields.join(', ')}.`);
  }
  return lines;
}

/** What the ledger shows for the window: real watering (union of valve-open time) and pretend water. */
function activityLines(evidence: ZoneEvidence): string[] {
  const { days, timezone } = evidence.window;
  const watering = evidence.runs.filter(isWateringEvidence);
  const intervals = unionIntervals(
    watering.map((r) => [r.start_epoch, r.start_epoch + r.duration_s] as const),
  );
  const seconds = intervals.reduce((sum, [a, b]) => sum + (b - a), 0);
  const dates = new Set(intervals.map(([a]) => localDateOf(a, timezone)));
  const lines = [
    intervals.length === 0
      ? `No watering recorded in the last ${days} days.`
      : `Watered on ${dates.size} day(s) in the last ${days} days, ${duration(seconds)} in all.`,
  ];
  const pretend = evidence.runs.filter(
    (r) => r.source.startsWith('dry_run') && r.status === 'completed',
  ).length;
  if (pretend > 0) lines.push(`${pretend} dry-run run(s) are pretend water and are not judged.`);
  return lines;
}

function duration(seconds: number): string {
  const total = Math.round(seconds / 60);
  const hours = Math.floor(total / 60);
  return hours > 0 ? `${hours} h ${total % 60} min` : `${total} min`;
}
