import type { ZodNamespace } from '../core/zod-lazy';
import { parseClock } from './restriction-rule';
import type { ValidationEntry } from './validate';

/**
 * `[deployment.run_window]` (and a zone's own `run_window`): when the night's run happens (irrigation/schedule/window-choice.ts places it).
 * - `finish_by`: `"sunrise"` (the default) or a local `"HH:MM"`: the run
 *   ends then, starting as early as its length needs;
 * - `start_at`: a local `"HH:MM"`: the run starts then on its plan day.
 * Never both: validate.ts refuses that with `run_window_conflict` (a named
 * code, so the shape itself accepts both and the validator says which).
 */
export function runWindowShape(z: ZodNamespace) {
  const clock = (what: string) =>
    z.string().refine((s) => parseClock(s) !== null, `expected a local "HH:MM" ${what}`);
  return z.strictObject({
    finish_by: z
      .union([z.literal('sunrise'), clock('or "sunrise"')])
      .nullish()
      .describe('"sunrise" (default) or a local "HH:MM" the run ends by'),
    start_at: clock('the run starts at').nullish().describe('a local "HH:MM" the run starts at'),
  });
}

interface WindowTable {
  finish_by?: string | null;
  start_at?: string | null;
}

/**
 * `run_window_conflict`: a run window with both `finish_by` and `start_at`,
 * the deployment's (`[deployment.run_window]`) or a zone's (`[zones.<slug>.run_window]`).
 */
export function checkRunWindows(
  config: {
    deployment: { run_window?: WindowTable | null };
    zones?: Record<string, { run_window?: WindowTable | null }>;
  },
  errors: ValidationEntry[],
): void {
  checkOne(config.deployment.run_window, '$.deployment.run_window', errors);
  for (const [slug, zone] of Object.entries(config.zones ?? {})) {
    checkOne(zone.run_window, `$.zones.${slug}.run_window`, errors);
  }
}

function checkOne(table: WindowTable | null | undefined, path: string, errors: ValidationEntry[]): void {
  if (table && typeof table.finish_by === 'string' && typeof table.start_at === 'string') {
    errors.push({
      code: 'run_window_conflict',
      path,
      message: 'a run window has finish_by or start_at, never both: keep the one you mean',
    });
  }
}
