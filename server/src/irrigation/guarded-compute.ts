import type { ControlsState } from './controls/types';
import { latestPauseEpoch, neutralControls } from './controls/types';
import type { EngineInput, EngineOutput } from './engine/types';

/**
 * The engine behind a guard at its input boundary. A persisted control is an
 * input nobody re-validates at every recompute: one that makes the engine
 * throw (a pause of 1e15 seconds, stored by a build that accepted it) used to
 * stop every recompute, across restarts, until someone cleared it. Here a
 * failing computation is retried with the stored controls degraded one at a
 * time; the first that computes is kept, and the control it degraded is
 * reported (health `engine` degraded, naming it) until the stored value
 * changes or computes again. Weather, forecast and run evidence are never set
 * aside: deciding on less evidence than there is would be wrong water, so a
 * failure there keeps the last answer and is reported the same way.
 */

export interface DegradedControl {
  /** `controls.pause_until_epoch`, ... */
  control: string;
  /** What the engine said about the stored value. */
  error: string;
  /** What the engine uses instead. */
  used: string;
}

export interface GuardedOutput {
  output: EngineOutput | null;
  /** The controls the output was computed with (the stored ones, or with some degraded). */
  controls: ControlsState;
  degraded: DegradedControl[];
  /** The engine's error when nothing computed. */
  error: string | null;
}

interface Degradation {
  control: string;
  /** The controls with this one degraded, and what it now reads as; null when it is already neutral. */
  apply(controls: ControlsState, nowEpoch: number): { controls: ControlsState; used: string } | null;
}

/**
 * Each stored control and its degraded value. A pause keeps its intent: an
 * unusable end in the future holds as long as a pause may (controls/types.ts),
 * never silently resumes watering.
 */
const DEGRADATIONS: readonly Degradation[] = [
  {
    control: 'controls.pause_until_epoch',
    apply: (c, now) => {
      if (c.pause_until_epoch === 0) return null;
      const held = c.pause_until_epoch > now ? latestPauseEpoch(now) : 0;
      return { controls: { ...c, pause_until_epoch: held }, used: String(held) };
    },
  },
  neutral('controls.override_tomorrow', (c) => c.override_tomorrow === 'none', {
    override_tomorrow: 'none',
    override_tomorrow_date: null,
  }),
  neutral('controls.global_override', (c) => c.global_override === 'auto', { global_override: 'auto' }),
  neutral('controls.zone_overrides', (c) => Object.keys(c.zone_overrides).length === 0, {
    zone_overrides: {},
  }),
  neutral('controls.thresholds', (c) => Object.keys(c.thresholds).length === 0, { thresholds: {} }),
  neutral('controls.toggles', (c) => Object.keys(c.toggles).length === 0, { toggles: {} }),
];

function neutral(
  control: string,
  isNeutral: (c: ControlsState) => boolean,
  values: Partial<ControlsState>,
): Degradation {
  return {
    control,
    apply: (c) => (isNeutral(c) ? null : { controls: { ...c, ...values }, used: 'its neutral default' }),
  };
}

export function computeGuarded(
  compute: (input: EngineInput) => EngineOutput,
  input: EngineInput,
): GuardedOutput {
  let error: string;
  try {
    return { output: compute(input), controls: input.controls, degraded: [], error: null };
  } catch (err) {
    error = messageOf(err);
  }
  for (const degradation of DEGRADATIONS) {
    const degraded = degradation.apply(input.controls, input.nowEpoch);
    if (!degraded) continue;
    const output = attempt(compute, { ...input, controls: degraded.controls });
    if (output) {
      const used = [{ control: degradation.control, error, used: degraded.used }];
      return { output, controls: degraded.controls, degraded: used, error };
    }
  }
  // Two bad controls at once: every one of them degraded.
  const all = degradeAll(input.controls, input.nowEpoch);
  const output = all.degraded.length > 0 ? attempt(compute, { ...input, controls: all.controls }) : null;
  return output
    ? { output, controls: all.controls, degraded: all.degraded.map((d) => ({ ...d, error })), error }
    : { output: null, controls: input.controls, degraded: [], error };
}

function degradeAll(
  controls: ControlsState,
  nowEpoch: number,
): { controls: ControlsState; degraded: Omit<DegradedControl, 'error'>[] } {
  let current = controls;
  const degraded: Omit<DegradedControl, 'error'>[] = [];
  for (const degradation of DEGRADATIONS) {
    const next = degradation.apply(current, nowEpoch);
    if (!next) continue;
    current = next.controls;
    degraded.push({ control: degradation.control, used: next.used });
  }
  return { controls: degraded.length > 0 ? current : neutralControls(), degraded };
}

function attempt(compute: (input: EngineInput) => EngineOutput, input: EngineInput): EngineOutput | null {
  try {
    return compute(input);
  } catch {
    return null;
  }
}

function messageOf(err: unknown): string {
  const message = (err as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : String(err);
}
