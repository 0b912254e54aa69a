import { REDACTED } from '../config/secrets';
import type { ChatMessage } from './providers/chat';

/**
 * What the model is given: the engine's own account of today's decision
 * (built from the decision trace) and the anomalies' descriptions, nothing
 * else: no config, no credentials, no raw readings. It is asked to rephrase,
 * never to decide. Any configured secret value that still appears in those
 * texts (a source's error note quoting a URL, say) is replaced before
 * anything leaves the service.
 */

const SYSTEM = [
  'You are the plain-language voice of Raincheck, a home irrigation controller.',
  "Rephrase today's decision below for the home owner in at most 120 words.",
  'Use only the facts given: add no numbers, causes or advice that are not in them.',
  'The decision is already made: never suggest watering more, less or at another time.',
  'If anomalies are listed, mention each in one short sentence with its fix.',
].join(' ');

export interface PromptFacts {
  /** The engine's explanation of today's verdict (explain.ts). */
  decision: string;
  /** Each anomaly's description. */
  anomalies: readonly string[];
}

export function buildMessages(facts: PromptFacts, secrets: readonly string[]): ChatMessage[] {
  const anomalies = facts.anomalies.length > 0 ? facts.anomalies.map((a) => `- ${a}`).join('\n') : '- none';
  const user = `Today's decision (from the engine's decision trace):\n${facts.decision}\n\nAnomalies:\n${anomalies}`;
  return [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: scrub(user, secrets) },
  ];
}

/** Replaces every occurrence of each secret value (longest first, so none is left half-masked). */
export function scrub(text: string, secrets: readonly string[]): string {
  const sorted = [...secrets].filter((s) => s.length >= 4).sort((a, b) => b.length - a.length);
  return sorted.reduce((out, secret) => out.split(secret).join(REDACTED), text);
}
