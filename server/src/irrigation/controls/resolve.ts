import { addLocalDays, localDateOf, localIsoOf } from '../schedule/local-date';
import type { ControlsState, OverrideMode, TomorrowMode } from './types';

/**
 * Which control decides a zone's watering on a local date (spec 3, 4.4).
 * Pure. Layers, first that speaks wins:
 *
 * 1. pause: the `irrigation_pause` toggle is on, or pause_until_epoch is
 *    after the moment asked about -> skip (`paused`). The pause beats even a
 *    `run` override: it is the user's explicit hold on all watering (frozen
 *    pipes, work on the system), and an override set days earlier must not
 *    silently break it.
 * 2. override_tomorrow: only on its target local date (see ControlsState);
 *    `run` -> water, `skip` -> skip; `none` or another date falls through.
 * 3. the zone's override: `run` / `skip`; `auto` falls through. Sticky (no
 *    nightly reset) and beats the global override.
 * 4. the global override: `run` / `skip`; `auto` falls through. Sticky.
 * 5. the engine: decision `engine` = use the engine's own verdict.
 *
 * `water` forces watering past the engine's skip conditions (rain, wind,
 * temperature); how long to water stays the plan's business.
 */

export type ControlDecision = 'water' | 'skip' | 'engine';
export type ControlSource = 'pause' | 'override_tomorrow' | 'zone_override' | 'global_override' | 'engine';

export type ControlReasonCode =
  | 'paused'
  | 'override_tomorrow_run'
  | 'override_tomorrow_skip'
  | 'zone_override_run'
  | 'zone_override_skip'
  | 'global_override_run'
  | 'global_override_skip'
  | 'engine';

export interface ControlResolution {
  decision: ControlDecision;
  source: ControlSource;
  reason_code: ControlReasonCode;
  reason: string;
}

export interface ResolveInput {
  controls: ControlsState;
  /** Zone slug. */
  zone: string;
  /** The local date (YYYY-MM-DD) of the run being decided. */
  dateLocal: string;
  /** Epoch seconds. */
  now: number;
  /**
   * The instant the pause is checked against: the run's planned start when
   * known (a pause that ends before a later run does not hold it), else now.
   */
  runEpoch?: number;
  /** IANA name: locates "tomorrow" for a tomorrow override stored without a date. */
  timezone: string;
}

export function resolveControls(input: ResolveInput): ControlResolution {
  const { controls, zone } = input;
  const at = input.runEpoch ?? input.now;

  if (isPaused(controls, at)) {
    const until =
      controls.toggles.irrigation_pause === true
        ? ''
        : ` until ${localIsoOf(controls.pause_until_epoch, input.timezone)}`;
    return {
      decision: 'skip',
      source: 'pause',
      reason_code: 'paused',
      reason: `irrigation is paused${until}`,
    };
  }

  const tomorrow = overrideTomorrowTarget(controls, input.now, input.timezone);
  if (tomorrow !== null && tomorrow.date === input.dateLocal) {
    return tomorrow.mode === 'run'
      ? {
          decision: 'water',
          source: 'override_tomorrow',
          reason_code: 'override_tomorrow_run',
          reason: `watering forced for ${tomorrow.date} by the tomorrow override`,
        }
      : {
          decision: 'skip',
          source: 'override_tomorrow',
          reason_code: 'override_tomorrow_skip',
          reason: `${tomorrow.date} skipped by the tomorrow override`,
        };
  }

  const zoneMode: OverrideMode = controls.zone_overrides[zone] ?? 'auto';
  if (zoneMode !== 'auto') {
    return zoneMode === 'run'
      ? {
          decision: 'water',
          source: 'zone_override',
          reason_code: 'zone_override_run',
          reason: `zone ${zone} is set to always run`,
        }
      : {
          decision: 'skip',
          source: 'zone_override',
          reason_code: 'zone_override_skip',
          reason: `zone ${zone} is set to always skip`,
        };
  }

  if (controls.global_override !== 'auto') {
    return controls.global_override === 'run'
      ? {
          decision: 'water',
          source: 'global_override',
          reason_code: 'global_override_run',
          reason: 'all zones are set to always run',
        }
      : {
          decision: 'skip',
          source: 'global_override',
          reason_code: 'global_override_skip',
          reason: 'all zones are set to always skip',
        };
  }

  return {
    decision: 'engine',
    source: 'engine',
    reason_code: 'engine',
    reason: 'no control applies; the engine decides',
  };
}

/**
 * The tomorrow override's mode and target date, or null when it is `none`.
 * A value stored without a date targets the day after now's local date.
 */
export function overrideTomorrowTarget(
  controls: ControlsState,
  now: number,
  timezone: string,
): { mode: Exclude<TomorrowMode, 'none'>; date: string } | null {
  if (controls.override_tomorrow === 'none') return null;
  const date = controls.override_tomorrow_date ?? addLocalDays(localDateOf(now, timezone), 1, timezone);
  return { mode: controls.override_tomorrow, date };
}

/**
 * The snapshot's `override_tomorrow` (spec 2.5): the mode while its target
 * date has not passed (it still shows on the target day itself, until that
 * day ends), `none` after.
 */
export function activeOverrideTomorrow(controls: ControlsState, now: number, timezone: string): TomorrowMode {
  const target = overrideTomorrowTarget(controls, now, timezone);
  if (target === null) return 'none';
  return target.date >= localDateOf(now, timezone) ? target.mode : 'none';
}

/** Spec 2.5 `skip_check.is_paused`: the pause toggle is on or the timed pause runs past `at` (epoch seconds). */
export function isPaused(controls: ControlsState, at: number): boolean {
  return controls.toggles.irrigation_pause === true || controls.pause_until_epoch > at;
}
