/**
 * The irrigation controls (spec 2.5, 3, 4.4): value sets and the state they
 * make up, shared by action validation, the store and the precedence resolver.
 */

/** Spec 3 "Override tomorrow" (the snapshot's `override_tomorrow` values). */
// Defined here, not taken from snapshot-schema: importing that would build every zod schema at boot.
export const TOMORROW_MODES = ['none', 'skip', 'run'] as const;
export type TomorrowMode = (typeof TOMORROW_MODES)[number];

/** Spec 3 "Global and per-zone override". */
export const OVERRIDE_MODES = ['auto', 'skip', 'run'] as const;
export type OverrideMode = (typeof OVERRIDE_MODES)[number];

/** Spec 4.4 / 8 "Threshold ranges": inclusive, same as engine.skip_rules' own bounds. */
export const THRESHOLD_RANGES = {
  max_wind_mph: { min: 0, max: 50, unit: 'mph' },
  min_temp_f: { min: 20, max: 70, unit: 'F' },
  rain_skip_in: { min: 0, max: 10, unit: 'in' },
} as const;
export type ThresholdKey = keyof typeof THRESHOLD_RANGES;
export const THRESHOLD_KEYS = Object.keys(THRESHOLD_RANGES) as ThresholdKey[];

/**
 * How far ahead `set_pause_until` may reach (docs/irrigation.md): a pause is
 * a hold over a trip or a winter, not forever (the `irrigation_pause` toggle
 * is the indefinite hold). 0 clears; a past epoch is accepted and holds nothing.
 */
export const PAUSE_MAX_AHEAD_S = 366 * 86400;

/** The latest pause end accepted at `nowEpoch`. */
export function latestPauseEpoch(nowEpoch: number): number {
  return Math.floor(nowEpoch) + PAUSE_MAX_AHEAD_S;
}

/** Toggle keys the service knows (spec 4.4 names `irrigation_pause`; others: not shown). */
/** `irrigation_pause`: hold all watering. `master_enable` off: the scheduler dispatches nothing (manual runs still work). */
export const TOGGLE_KEYS = ['irrigation_pause', 'master_enable'] as const;
export type ToggleKey = (typeof TOGGLE_KEYS)[number];

/** Every persisted control, decoded. Absent or unreadable values read as their neutral default. */
export interface ControlsState {
  /** 0 = no timed pause. */
  pause_until_epoch: number;
  override_tomorrow: TomorrowMode;
  /**
   * The local date (YYYY-MM-DD) the tomorrow override targets, fixed when it
   * was set (the day after the local date at that moment); null for `none`
   * or a value written without a date (then "tomorrow" is read relative to now).
   */
  override_tomorrow_date: string | null;
  global_override: OverrideMode;
  /** Zone slug -> `skip` or `run`; a zone absent here is `auto`. */
  zone_overrides: Record<string, Exclude<OverrideMode, 'auto'>>;
  /** Threshold controls; a key absent here uses engine.skip_rules. */
  thresholds: Partial<Record<ThresholdKey, number>>;
  toggles: Partial<Record<ToggleKey, boolean>>;
}

/** A fresh state with every control at its neutral value (no pause, no overrides, engine thresholds). */
export function neutralControls(): ControlsState {
  return {
    pause_until_epoch: 0,
    override_tomorrow: 'none',
    override_tomorrow_date: null,
    global_override: 'auto',
    zone_overrides: {},
    thresholds: {},
    toggles: {},
  };
}

export function thresholdInRange(key: ThresholdKey, value: number): boolean {
  const range = THRESHOLD_RANGES[key];
  return Number.isFinite(value) && value >= range.min && value <= range.max;
}

/** "min_temp_f must be between 20 and 70 F" */
export function thresholdRangeText(key: ThresholdKey): string {
  const range = THRESHOLD_RANGES[key];
  return `${key} must be between ${range.min} and ${range.max} ${range.unit}`;
}
