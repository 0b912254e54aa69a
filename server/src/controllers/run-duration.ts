/**
 * The run's length as a template value, so a board can time itself (a
 * device-side limit that closes the valve even when Raincheck is gone):
 * `{seconds}`, `{minutes}` (rounded up) and `{pulsetime}`, Tasmota's
 * PulseTime encoding (1..111 = tenths of a second, 112..64900 = seconds + 100),
 * for a command such as `Backlog PulseTime1 {pulsetime}; Power1 ON`.
 */

export const DURATION_PLACEHOLDERS = ['seconds', 'minutes', 'pulsetime'] as const;
const DURATION = /\{(seconds|minutes|pulsetime)\}/;
const PULSETIME_MAX = 64_900;

export interface DurationValues {
  seconds: number;
  minutes: number;
  pulsetime: number;
}

export function durationValues(seconds: number): DurationValues {
  return { seconds, minutes: Math.ceil(seconds / 60), pulsetime: pulseTime(seconds) };
}

/** Tasmota PulseTime for `seconds` (0 = no pulse, as for a stop). */
export function pulseTime(seconds: number): number {
  if (seconds <= 0) return 0;
  if (seconds < 11.2) return Math.max(1, Math.round(seconds * 10));
  return Math.min(PULSETIME_MAX, Math.round(seconds) + 100);
}

/** True when any of these templates sends the run's length to the device. */
export function carriesDuration(templates: readonly (string | null | undefined)[]): boolean {
  return templates.some((template) => typeof template === 'string' && DURATION.test(template));
}
