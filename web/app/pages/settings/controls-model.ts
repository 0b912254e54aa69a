import { epochOfWallTime, wallTime } from '../../lib/zone-clock';

/**
 * Settings > Thresholds (pure): the current skip thresholds and controls,
 * read from the entity manifest (GET sensors/manifest, which carries the
 * persisted control values and the server-enforced ranges) with the
 * irrigation snapshot as a fallback, and the set_threshold actions a save
 * sends (spec 4.4). No preact, no DOM.
 */

export type ThresholdKey = 'max_wind_mph' | 'min_temp_f' | 'rain_skip_in';

export interface ThresholdSpec {
  key: ThresholdKey;
  label: string;
  /** Server-enforced range (spec 4.4), inclusive. */
  min: number;
  max: number;
  step: number;
  unit: string;
  help: string;
}

export const THRESHOLDS: ThresholdSpec[] = [
  {
    key: 'max_wind_mph',
    label: 'Max wind (mph)',
    min: 0,
    max: 50,
    step: 0.5,
    unit: 'mph',
    help: 'Skip watering when the wind is above this (spray drifts).',
  },
  {
    key: 'min_temp_f',
    label: 'Min temperature (°F)',
    min: 20,
    max: 70,
    step: 1,
    unit: '°F',
    help: 'Skip watering when the low is at or below this (freeze risk).',
  },
  {
    key: 'rain_skip_in',
    label: 'Rain skip (in)',
    min: 0,
    max: 10,
    step: 0.01,
    unit: 'in',
    help: 'Skip watering when at least this much rain is expected; also the wet-day line of the accuracy score.',
  },
];

export interface ControlsView {
  thresholds: Record<ThresholdKey, number | null>;
  /** Watering paused (the pause toggle or a pause-until in the future); null = unknown. */
  paused: boolean | null;
  /** 0 = no timed pause; null = unknown. */
  pauseUntilEpoch: number | null;
  globalOverride: string | null;
  overrideTomorrow: string | null;
}

export const GLOBAL_OVERRIDES = ['auto', 'skip', 'run'] as const;
export const TOMORROW_OVERRIDES = ['none', 'skip', 'run'] as const;

interface ManifestEntity {
  key?: unknown;
  state?: unknown;
}

function numberOf(value: unknown): number | null {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)))
    return Number(value);
  return null;
}

function stringOf(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

/** What GET sensors/manifest says about the controls; fields it does not carry stay null. */
export function fromManifest(manifest: unknown): ControlsView {
  const view = emptyView();
  const entities = (manifest as { entities?: unknown } | null)?.entities;
  if (!Array.isArray(entities)) return view;
  for (const entity of entities as ManifestEntity[]) {
    const key = typeof entity.key === 'string' ? entity.key : '';
    if (key.startsWith('threshold_')) {
      const name = key.slice('threshold_'.length);
      if (name in view.thresholds) view.thresholds[name as ThresholdKey] = numberOf(entity.state);
    } else if (key === 'pause') {
      view.paused = entity.state === 'ON' ? true : entity.state === 'OFF' ? false : null;
    } else if (key === 'pause_until') {
      const text = stringOf(entity.state);
      const ms = text === null ? NaN : Date.parse(text);
      view.pauseUntilEpoch = entity.state === null ? 0 : Number.isFinite(ms) ? Math.floor(ms / 1000) : null;
    } else if (key === 'global_override') {
      view.globalOverride = stringOf(entity.state);
    } else if (key === 'override_tomorrow') {
      view.overrideTomorrow = stringOf(entity.state);
    }
  }
  return view;
}

interface SnapshotLike {
  pause_until_epoch?: unknown;
  override_tomorrow?: unknown;
  global_override?: unknown;
  skip_check?: { is_paused?: unknown; rules?: { rule?: unknown; inputs?: Record<string, unknown> }[] } | null;
}

/** The irrigation snapshot's view: thresholds as the skip rules used them, pause, global and tomorrow overrides. */
export function fromSnapshot(snapshot: unknown): ControlsView {
  const view = emptyView();
  const s = (snapshot ?? {}) as SnapshotLike;
  view.pauseUntilEpoch = numberOf(s.pause_until_epoch);
  view.overrideTomorrow = stringOf(s.override_tomorrow);
  view.globalOverride = stringOf(s.global_override);
  const paused = s.skip_check?.is_paused;
  view.paused = typeof paused === 'boolean' ? paused : null;
  for (const rule of s.skip_check?.rules ?? []) {
    const inputs = rule.inputs ?? {};
    if (rule.rule === 'wind_now' && view.thresholds.max_wind_mph === null)
      view.thresholds.max_wind_mph = numberOf(inputs.max_wind_mph);
    if (rule.rule === 'freeze' && view.thresholds.min_temp_f === null)
      view.thresholds.min_temp_f = numberOf(inputs.min_temp_threshold_f);
    if (
      (rule.rule === 'rain_today_forecast' || rule.rule === 'tomorrow_rain') &&
      view.thresholds.rain_skip_in === null
    )
      view.thresholds.rain_skip_in = numberOf(inputs.rain_skip_in);
  }
  return view;
}

function emptyView(): ControlsView {
  return {
    thresholds: { max_wind_mph: null, min_temp_f: null, rain_skip_in: null },
    paused: null,
    pauseUntilEpoch: null,
    globalOverride: null,
    overrideTomorrow: null,
  };
}

/** The first view's known values, the second's where the first does not know. */
export function mergeViews(first: ControlsView, second: ControlsView): ControlsView {
  return {
    thresholds: {
      max_wind_mph: first.thresholds.max_wind_mph ?? second.thresholds.max_wind_mph,
      min_temp_f: first.thresholds.min_temp_f ?? second.thresholds.min_temp_f,
      rain_skip_in: first.thresholds.rain_skip_in ?? second.thresholds.rain_skip_in,
    },
    paused: first.paused ?? second.paused,
    pauseUntilEpoch: first.pauseUntilEpoch ?? second.pauseUntilEpoch,
    globalOverride: first.globalOverride ?? second.globalOverride,
    overrideTomorrow: first.overrideTomorrow ?? second.overrideTomorrow,
  };
}

export type ThresholdCheck = { ok: true; value: number } | { ok: false; message: string };

export function checkThreshold(spec: ThresholdSpec, text: string): ThresholdCheck {
  const trimmed = text.trim();
  const value = Number(trimmed);
  if (trimmed === '' || !Number.isFinite(value)) return { ok: false, message: 'Enter a number.' };
  if (value < spec.min || value > spec.max)
    return { ok: false, message: `Must be between ${spec.min} and ${spec.max} ${spec.unit}.` };
  return { ok: true, value };
}

export interface ThresholdPlan {
  /** One set_threshold action per changed value. */
  actions: { kind: 'set_threshold'; key: ThresholdKey; value: number }[];
  /** Input errors by key; nothing is sent while any exists. */
  errors: Partial<Record<ThresholdKey, string>>;
}

/** The actions that bring the current values to the edited text; unchanged and untouched values send nothing. */
export function planThresholds(
  current: Record<ThresholdKey, number | null>,
  edited: Partial<Record<ThresholdKey, string>>,
): ThresholdPlan {
  const plan: ThresholdPlan = { actions: [], errors: {} };
  for (const spec of THRESHOLDS) {
    const text = edited[spec.key];
    if (text === undefined) continue;
    const checked = checkThreshold(spec, text);
    if (!checked.ok) {
      plan.errors[spec.key] = checked.message;
      continue;
    }
    if (current[spec.key] !== null && Math.abs((current[spec.key] as number) - checked.value) < 1e-9)
      continue;
    plan.actions.push({ kind: 'set_threshold', key: spec.key, value: checked.value });
  }
  if (Object.keys(plan.errors).length > 0) plan.actions = [];
  return plan;
}

function pad(n: number): string {
  return String(n).padStart(2, '0');
}

/** An epoch as a `datetime-local` input value on the yard's clock (`2026-11-22T06:00`; the browser's without a zone). */
export function toLocalInput(epoch: number, timeZone?: string): string {
  const t = wallTime(epoch, timeZone);
  return `${t.year}-${pad(t.month)}-${pad(t.day)}T${pad(t.hour)}:${pad(t.minute)}`;
}

/** A `datetime-local` value on the yard's clock as epoch seconds; null when it is not one. */
export function fromLocalInput(text: string, timeZone?: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(text.trim());
  if (!m) return null;
  const [, year, month, day, hour, minute, second] = m.map(Number) as number[];
  const epoch = epochOfWallTime(
    {
      year: year as number,
      month: month as number,
      day: day as number,
      hour: hour as number,
      minute: minute as number,
      second: Number.isFinite(second) ? (second as number) : 0,
    },
    timeZone,
  );
  return Number.isFinite(epoch) ? Math.floor(epoch) : null;
}
