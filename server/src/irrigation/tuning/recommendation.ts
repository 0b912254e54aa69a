import { createHash } from 'node:crypto';
import type { JsonValue } from '../../store/json';
import type { ZoneEvidence } from './evidence';
import type { TunableField } from './fields';

/**
 * What a recommendation deriver answers for one zone (one module per field,
 * `derivers/`). Derivers are pure functions of the zone's evidence bundle.
 */

export type Confidence = 'low' | 'medium' | 'high';

/** Spec 2.5 "Recommendation" without its id (the id is derived from zone, field and value). */
export interface Suggestion {
  field: TunableField;
  current_value: JsonValue;
  suggested_value: JsonValue;
  companion_fields: { field: string; value: JsonValue }[];
  headline: string;
  evidence: string[];
  confidence: Confidence;
}

export interface Recommendation extends Suggestion {
  id: string;
}

export type Derivation =
  /** The evidence supports changing the field. */
  | { outcome: 'suggest'; suggestion: Suggestion; line: string }
  /** The evidence says the current value is fine. */
  | { outcome: 'ok'; line: string }
  /** Not enough evidence: `waiting_for` names what would let it judge. */
  | { outcome: 'insufficient'; waiting_for: string; line: string }
  /** The field does not apply to this zone (a weekly field on a soil zone). */
  | { outcome: 'not_applicable' };

export interface Deriver {
  readonly field: TunableField;
  derive(evidence: ZoneEvidence): Derivation;
}

/**
 * Stable: the same zone, field and suggested value always give the same id,
 * so a snooze follows the suggestion until its value drifts.
 */
export function recommendationId(zone: string, field: string, value: JsonValue): string {
  return createHash('sha256')
    .update(JSON.stringify([zone, field, value]))
    .digest('hex')
    .slice(0, 16);
}

export function withId(zone: string, suggestion: Suggestion): Recommendation {
  return { id: recommendationId(zone, suggestion.field, suggestion.suggested_value), ...suggestion };
}
