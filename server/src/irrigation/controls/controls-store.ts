import type { ControlsRepository } from '../../store/controls';
import { CONTROL_KEYS } from '../../store/controls';
import { fromJson, toJson, type JsonValue } from '../../store/json';
import { addLocalDays, localDateOf } from '../schedule/local-date';
import type { ControlAction } from './actions';
import {
  OVERRIDE_MODES,
  THRESHOLD_KEYS,
  TOGGLE_KEYS,
  TOMORROW_MODES,
  neutralControls,
  thresholdInRange,
  thresholdRangeText,
  type ControlsState,
  type OverrideMode,
  type ThresholdKey,
} from './types';

/**
 * The controls as one typed state over the persisted key/value rows
 * (store/controls.ts). The only impure file of irrigation/controls: it reads
 * and writes the repository; the time comes in as an argument.
 *
 * Stored values (JSON): pause_until_epoch integer (0 = none);
 * override_tomorrow `none|skip|run` plus override_tomorrow_date (the local
 * date it targets, fixed when set, null for none); global_override and
 * zone_override:<slug> `auto|skip|run`; threshold:<key> number;
 * toggle:<key> boolean (an object `{on: boolean}` is read too).
 * A value that does not decode reads as the neutral default (no pause,
 * `none`, `auto`, the engine's threshold): a bad row never blocks watering
 * decisions and is overwritten by the next action.
 *
 * Each action is one setMany (one transaction): all its rows or none.
 * `auto` on a zone is written as `auto` rather than deleted, so the write
 * stays one atomic setMany.
 */

/** Not in CONTROL_KEYS (store/controls.ts): the target date of the tomorrow override. */
export const OVERRIDE_TOMORROW_DATE_KEY = 'override_tomorrow_date';

const ZONE_OVERRIDE_PREFIX = CONTROL_KEYS.zoneOverride('');
const THRESHOLD_PREFIX = CONTROL_KEYS.threshold('');
const TOGGLE_PREFIX = CONTROL_KEYS.toggle('');

/** What the store needs of a repository: ControlsRepository, or MemoryControlsBackend without a database. */
export type ControlsBackend = Pick<ControlsRepository, 'get' | 'set' | 'setMany' | 'delete' | 'all'>;

export class ControlsStore {
  private readonly timezone: () => string;

  /** `timezone`: the deployment's IANA zone (a function to follow config reloads). */
  constructor(
    private readonly backend: ControlsBackend,
    timezone: string | (() => string),
  ) {
    this.timezone = typeof timezone === 'string' ? () => timezone : timezone;
  }

  load(): ControlsState {
    return decodeControls(this.backend.all());
  }

  /** Persists the action atomically and returns the state as now stored. Throws RangeError on an invalid action. */
  apply(action: ControlAction, nowEpoch: number): ControlsState {
    this.backend.setMany(encodeAction(action, nowEpoch, this.timezone()));
    return this.load();
  }
}

/** Rows an action writes. Pure. Toggling `irrigation_pause` off also ends a timed pause: "off" means watering resumes. */
export function encodeAction(
  action: ControlAction,
  nowEpoch: number,
  timezone: string,
): Record<string, JsonValue> {
  switch (action.kind) {
    case 'set_threshold':
      if (!THRESHOLD_KEYS.includes(action.key) || !thresholdInRange(action.key, action.value)) {
        throw new RangeError(`${thresholdRangeText(action.key)}; got ${action.value}`);
      }
      return { [CONTROL_KEYS.threshold(action.key)]: action.value };
    case 'toggle':
      if (!(TOGGLE_KEYS as readonly string[]).includes(action.key))
        throw new RangeError(`unknown toggle ${action.key}`);
      return action.key === 'irrigation_pause' && !action.on
        ? { [CONTROL_KEYS.toggle(action.key)]: false, [CONTROL_KEYS.pauseUntilEpoch]: 0 }
        : { [CONTROL_KEYS.toggle(action.key)]: action.on };
    case 'set_pause_until':
      if (!Number.isSafeInteger(action.epoch) || action.epoch < 0) {
        throw new RangeError(`pause epoch must be an integer >= 0, got ${action.epoch}`);
      }
      return { [CONTROL_KEYS.pauseUntilEpoch]: action.epoch };
    case 'clear_pause_until':
      return { [CONTROL_KEYS.pauseUntilEpoch]: 0 };
    case 'set_override_tomorrow': {
      const date = action.mode === 'none' ? null : addLocalDays(localDateOf(nowEpoch, timezone), 1, timezone);
      return { [CONTROL_KEYS.overrideTomorrow]: action.mode, [OVERRIDE_TOMORROW_DATE_KEY]: date };
    }
    case 'set_global_override':
      return { [CONTROL_KEYS.globalOverride]: action.mode };
    case 'set_zone_override':
      if (action.zone.length === 0) throw new RangeError('zone slug is empty');
      return { [CONTROL_KEYS.zoneOverride(action.zone)]: action.mode };
  }
}

/** The state the stored rows describe. Pure. */
export function decodeControls(rows: Record<string, JsonValue>): ControlsState {
  const state = neutralControls();
  const pause = rows[CONTROL_KEYS.pauseUntilEpoch];
  if (typeof pause === 'number' && Number.isSafeInteger(pause) && pause > 0) state.pause_until_epoch = pause;

  const tomorrow = rows[CONTROL_KEYS.overrideTomorrow];
  if (isOneOf(TOMORROW_MODES, tomorrow) && tomorrow !== 'none') {
    state.override_tomorrow = tomorrow;
    const date = rows[OVERRIDE_TOMORROW_DATE_KEY];
    state.override_tomorrow_date = typeof date === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(date) ? date : null;
  }

  const global = rows[CONTROL_KEYS.globalOverride];
  if (isOneOf(OVERRIDE_MODES, global)) state.global_override = global;

  for (const [key, value] of Object.entries(rows)) {
    if (key.startsWith(ZONE_OVERRIDE_PREFIX)) {
      const slug = key.slice(ZONE_OVERRIDE_PREFIX.length);
      if (slug.length > 0 && (value === 'skip' || value === 'run')) state.zone_overrides[slug] = value;
    } else if (key.startsWith(THRESHOLD_PREFIX)) {
      const name = key.slice(THRESHOLD_PREFIX.length);
      if (isOneOf(THRESHOLD_KEYS, name) && typeof value === 'number' && thresholdInRange(name, value)) {
        state.thresholds[name] = value;
      }
    } else if (key.startsWith(TOGGLE_PREFIX)) {
      const name = key.slice(TOGGLE_PREFIX.length);
      const on = toggleValue(value);
      if (isOneOf(TOGGLE_KEYS, name) && on !== null) state.toggles[name] = on;
    }
  }
  return state;
}

/** The zone's override mode (`auto` when none is stored). */
export function zoneOverrideOf(state: ControlsState, slug: string): OverrideMode {
  return state.zone_overrides[slug] ?? 'auto';
}

/** engine.skip_rules with the threshold controls laid over them. */
export function effectiveSkipRules<T extends Partial<Record<ThresholdKey, number>>>(
  skipRules: T,
  state: ControlsState,
): T {
  return { ...skipRules, ...state.thresholds };
}

/** An in-memory backend for when no persistence database is mounted (`controls_persisted` false). */
export class MemoryControlsBackend implements ControlsBackend {
  private readonly rows = new Map<string, JsonValue>();

  get(key: string): JsonValue | undefined {
    const value = this.rows.get(key);
    return value === undefined ? undefined : fromJson(toJson(value));
  }

  /** Stores a JSON round-trip copy; refuses non-finite numbers as the database does. */
  set(key: string, value: JsonValue): void {
    this.rows.set(key, fromJson(toJson(value)));
  }

  /** All or none, as the repository: every value is encoded before any is stored. */
  setMany(entries: Record<string, JsonValue>): void {
    const encoded = Object.entries(entries).map(([key, value]) => [key, toJson(value)] as const);
    for (const [key, text] of encoded) this.rows.set(key, fromJson(text));
  }

  delete(key: string): boolean {
    return this.rows.delete(key);
  }

  all(): Record<string, JsonValue> {
    const out: Record<string, JsonValue> = {};
    for (const key of [...this.rows.keys()].sort())
      out[key] = fromJson(toJson(this.rows.get(key) as JsonValue));
    return out;
  }
}

function isOneOf<T extends string>(values: readonly T[], value: unknown): value is T {
  return typeof value === 'string' && (values as readonly string[]).includes(value);
}

function toggleValue(value: JsonValue | undefined): boolean | null {
  if (typeof value === 'boolean') return value;
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && typeof value.on === 'boolean') {
    return value.on;
  }
  return null;
}
