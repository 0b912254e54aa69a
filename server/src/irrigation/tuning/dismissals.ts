import type { TuningDismissal } from '../../store/tuning-dismissals';
import { localDateOf } from '../schedule/local-date';
import type { Recommendation } from './recommendation';

/**
 * Which dismissals silence a recommendation (spec 3): `permanent` silences
 * the zone's field whatever the value; `snooze` silences that exact
 * recommendation id until it expires, so a suggestion whose value drifted
 * (a new id) returns before the snooze ends. Pure.
 */

/** Spec 8: a snooze lasts 30 days. */
export const SNOOZE_DAYS = 30;

export function silencing(
  zone: string,
  recommendation: Recommendation,
  dismissals: readonly TuningDismissal[],
  nowEpoch: number,
): TuningDismissal | null {
  const mine = dismissals.filter((d) => d.zone === zone && d.field === recommendation.field);
  return (
    mine.find((d) => d.kind === 'permanent') ??
    mine.find(
      (d) =>
        d.kind === 'snooze' && d.recommendation_id === recommendation.id && (d.expires_epoch ?? 0) > nowEpoch,
    ) ??
    null
  );
}

/** Fields a permanent dismissal holds for the zone, whether or not anything derives for them. */
export function permanentFields(zone: string, dismissals: readonly TuningDismissal[]): string[] {
  return dismissals.filter((d) => d.zone === zone && d.kind === 'permanent').map((d) => d.field);
}

/** The muted annotation a silenced recommendation leaves as the zone's last line. */
export function mutedLine(recommendation: Recommendation, by: TuningDismissal, timezone: string): string {
  if (by.kind === 'permanent') {
    return `Dismissed for good (undismiss ${recommendation.field} to see it again): ${recommendation.headline}`;
  }
  const until = localDateOf(by.expires_epoch ?? 0, timezone);
  return `Snoozed until ${until}: ${recommendation.headline}`;
}
