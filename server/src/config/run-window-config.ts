import type { ZodNamespace } from '../core/zod-lazy';
import { parseClock } from './restriction-rule';
import type { ValidationEntry } from './validate';

/**
 * `[deployment.run_window]`: when the night's run happens (irrigation/schedule/window-choice.ts places it).
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

/** `run_window_conflict`: `[deployment.run_window]` with both `finish_by` and `start_at`. */
export function checkRunWindows(
  config: { deployment: { run_window?: WindowTable | null } },
  errors: ValidationEntry[],
): void {
  const table = config.deployment.run_window;
  if (table && typeof table.finish_by === 'string' && typeof table.start_at === 'string') {
    errors.push({
      code: 'run_window_conflict',
      path: '$.deployment.run_window',
      message: 'a run window has finish_by or start_at, never both: keep the one you mean',
    });
  }
}
