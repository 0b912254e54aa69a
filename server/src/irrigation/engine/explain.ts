import type { EngineOutput } from './types';

/**
 * A deterministic plain-English account of today's verdict, from the
 * decision trace (for /irrigation/explanation). Same output in, same text out.
 */
export function explainVerdict(output: EngineOutput): string {
  const trace = (output.snapshot.decision_trace ?? {}) as Record<string, unknown>;
  const skip = (trace['skip_check'] ?? {}) as Record<string, unknown>;
  const zones = (trace['zones'] ?? {}) as Record<string, Record<string, unknown>>;
  const lines: string[] = [];
  const deciding = String(trace['deciding'] ?? 'model');
  const rule =
    deciding === 'skip_check'
      ? `the skip rule ${String(skip['deciding_rule'] ?? skip['reason_code'] ?? 'unknown')}`
      : deciding === 'controls'
        ? 'a control (pause or override)'
        : deciding === 'evidence'
          ? 'missing evidence (no water on a guess)'
          : 'the water model';
  lines.push(
    `Verdict for ${String(trace['date_local'] ?? output.decision.date_local)}: ${output.verdict} (${String(trace['reason_code'] ?? '')}), decided by ${rule}.`,
  );
  if (trace['reason']) lines.push(String(trace['reason']));
  if (skip['verdict'])
    lines.push(
      `Skip check: ${String(skip['verdict'])} (${String(skip['reason_code'])}): ${String(skip['reason'])}`,
    );
  for (const slug of Object.keys(zones).sort()) {
    const z = zones[slug] as Record<string, unknown>;
    const d = (z['decision'] ?? {}) as Record<string, unknown>;
    lines.push(
      `- ${String(z['name'] ?? slug)} [${String(z['model'])}]: ${String(d['planned_seconds'] ?? 0)} s, ${String(d['reason_code'] ?? '')}: ${String(z['why'] ?? '')}`,
    );
  }
  return lines.join('\n');
}
