import { ownWindow } from '../schedule/zone-windows';
import { evaluateSkipCheck, type SkipCheck, type SkipCheckInput } from '../skip/skip-check';
import type { ZoneLedger } from './applied-water';
import type { EngineContext } from './context';
import type { SkipLike, ZonePlan } from './water-plan';

/**
 * Today's skip check judged on the hours each zone really runs. The freeze
 * and wind forecast rules read the run window; a zone with its own
 * `run_window` (schedule/zone-windows.ts) runs in its own hours, so it gets
 * its own check over that window (placed for the zone's provisional seconds
 * plus what already ran today, like its window-closed flag). A zone with no
 * water in its own window today keeps the deployment's check. Pure.
 */
export function ownWindowSkipChecks(
  ctx: EngineContext,
  provisional: readonly ZonePlan[],
  ledgers: Map<string, ZoneLedger>,
  deploymentInput: SkipCheckInput,
): Map<string, SkipCheck> {
  const out = new Map<string, SkipCheck>();
  for (const plan of provisional) {
    const window = ownWindow(ctx, plan, 0, ledgers);
    if (!window) continue;
    out.set(
      plan.zone.slug,
      evaluateSkipCheck({
        ...deploymentInput,
        run_window: window,
      }),
    );
  }
  return out;
}

/** Today's verdict for the plan from a skip check. */
export function todayVerdict(skip: SkipCheck): SkipLike {
  return {
    verdict: skip.verdict,
    reason_code: skip.reason_code,
    reason: skip.reason,
    unknown_rules: skip.rules.filter((r) => r.verdict === 'unknown' && r.can_skip).map((r) => r.rule),
  };
}
