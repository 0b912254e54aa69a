import type { JsonValue } from '../../store/json';
import type { VerdictTransition } from '../../store/decisions';

/**
 * The verdict-transition record served by /irrigation/decisions and the
 * exports (its shape is the service's choice, spec 2.5 leaves it open):
 * `{epoch, verdict, previous_verdict, reason}`, one per change of the overall
 * verdict. `reason` is why the new verdict holds, `{reason_code, reason,
 * deciding}`: the overall verdict's own code (`paused`, `global_override_run`,
 * a skip rule such as `rain_3day`, ...), its sentence, and what decided
 * (`controls`, `skip_check`, `model`, `evidence`). Records written before
 * that carry `{reason_code}` alone. previous_verdict is null for the very
 * first record; a restart that keeps the verdict records nothing.
 */

export type DecisionRecord = VerdictTransition;

/** Drops the storage id: the record is identified by its epoch and order. */
export function toDecisionRecord(t: VerdictTransition): DecisionRecord {
  return { epoch: t.epoch, verdict: t.verdict, previous_verdict: t.previous_verdict, reason: t.reason };
}

function isObject(value: JsonValue): value is { [key: string]: JsonValue } {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The stored reason's reason_code, or null when it has none. */
export function reasonCode(reason: JsonValue): string | null {
  if (!isObject(reason)) return null;
  const code = reason.reason_code;
  return typeof code === 'string' ? code : null;
}

/** The stored reason as one line of text: its reason_code, a plain string, '' for none, else its JSON. */
export function reasonText(reason: JsonValue): string {
  if (typeof reason === 'string') return reason;
  const code = reasonCode(reason);
  if (code !== null) return code;
  const empty = reason === null || (isObject(reason) && Object.values(reason).every((v) => v === null));
  return empty ? '' : JSON.stringify(reason);
}
