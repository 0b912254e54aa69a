import { getTimes } from 'suncalc';
import type { TODAY_WINDOW_KINDS } from '../snapshot-schema';
import { localDateOf, localNoonMs } from './local-date';
import {
  avoidForbidden,
  placeAtTime,
  SUNRISE_CHOICE,
  type WindowAnchor,
  type WindowChoice,
} from './window-choice';

/**
 * The night's run window (spec 2.5 `today_window`). Pure: inputs and a date in,
 * the window out.
 *
 * - `pre_dawn` (the normal case): the whole run finishes at sunrise, so
 *   `finish` = sunrise and `start` = sunrise - totalRunSeconds.
 * - `post_sunrise`: when the night's forecast minimum is below the engine's
 *   `min_temp_f`, water lands on a freezing surface before dawn; the run
 *   starts POST_SUNRISE_BUFFER_S (1 hour) after sunrise instead, once the sun
 *   has begun to warm the ground, and `finish` = start + totalRunSeconds.
 *   Equal to the threshold is not below it (pre-dawn). An unknown minimum
 *   (null) keeps the normal pre-dawn window: whether to skip for frost is the
 *   skip check's call, not the window's.
 * - `no_sunrise`: the sun does not rise on that local date (polar day or
 *   polar night); there is no dawn to finish by.
 * - `no_location`: lat or lon missing; nothing can be placed.
 *
 * Sunrise is an absolute instant from suncalc for the location on the local
 * calendar date (asked at local noon, so the calculator picks that date's
 * solar day), and the window is built in absolute seconds from it. It is
 * therefore right in local time across DST changes: in New York on
 * 2026-03-08 sunrise is 07:18 EDT and a 6-hour pre-dawn window starts at
 * 00:18 EST (7 wall-clock hours, 6 real ones); on 2026-11-01 sunrise is
 * 06:26 EST and the same window starts at 01:26 EDT (the first 01:26).
 *
 * Epochs are whole seconds (sunrise floored).
 *
 * `choice` (window-choice.ts) replaces the sunrise anchor with the owner's
 * `[deployment.run_window]` time (`kind` then says whether the window ends
 * by sunrise: `pre_dawn`, or not: `post_sunrise`) and keeps the window out of
 * the restrictions' forbidden hours. A day without a sunrise stays
 * `no_sunrise` whatever the choice.
 */

/** Seconds after sunrise that a `post_sunrise` window starts. */
export const POST_SUNRISE_BUFFER_S = 3600;

/** Spec 2.5 `today_window.kind`. */
export type RunWindowKind = (typeof TODAY_WINDOW_KINDS)[number];

/** Spec 2.5 `today_window`. */
export interface RunWindow {
  start: number;
  finish: number;
  kind: RunWindowKind;
  /** The forecast minimum the kind was chosen from; null when unknown. */
  min_temp_f: number | null;
}

export interface RunWindowInput {
  lat: number | null | undefined;
  lon: number | null | undefined;
  /** IANA name, resolved by the caller (config or the coordinate lookup). */
  timezone: string;
  /** The local date (YYYY-MM-DD) the run belongs to; wins over `epoch` when both are given. */
  dateLocal?: string;
  /** Any instant on the local date the run belongs to (epoch seconds). */
  epoch?: number;
  /** Total seconds of the night's run (all zones, in sequence); >= 0. */
  totalRunSeconds: number;
  /** The window's forecast minimum temperature (F); null when unknown. */
  minTempF: number | null;
  /** The engine's `skip_rules.min_temp_f` (or its threshold control). */
  minTempThresholdF: number;
  /** `[deployment.run_window]` and the restrictions' forbidden hours (window-choice.ts); absent = finish by sunrise. */
  choice?: WindowChoice;
}

export type RunWindowResult =
  | { state: 'ok'; date_local: string; sunrise_epoch: number; window: RunWindow }
  | { state: 'no_sunrise'; date_local: string }
  | { state: 'no_location' };

export function runWindow(input: RunWindowInput): RunWindowResult {
  const { totalRunSeconds } = input;
  if (!Number.isFinite(totalRunSeconds) || totalRunSeconds < 0) {
    throw new RangeError(`totalRunSeconds must be a finite number >= 0, got ${totalRunSeconds}`);
  }
  const { lat, lon } = input;
  if (!isCoordinate(lat) || !isCoordinate(lon)) return { state: 'no_location' };

  const dateLocal = resolveDate(input);
  const sunrise = sunriseEpoch(dateLocal, input.timezone, lat, lon);
  if (sunrise === null) return { state: 'no_sunrise', date_local: dateLocal };

  const seconds = Math.round(totalRunSeconds);
  const choice = input.choice ?? SUNRISE_CHOICE;
  const placed =
    choice.anchor.kind === 'finish_by_sunrise'
      ? sunriseWindow(sunrise, seconds, input.minTempF, input.minTempThresholdF)
      : chosenWindow(choice.anchor, dateLocal, input.timezone, seconds, sunrise, input.minTempF);
  const moved = avoidForbidden(placed, choice.anchor, choice.rules, dateLocal, input.timezone);
  const window: RunWindow = { ...placed, ...moved };
  return { state: 'ok', date_local: dateLocal, sunrise_epoch: sunrise, window };
}

/** A chosen local time (window-choice.ts): the user's time stands, the frost rule does not move it. */
function chosenWindow(
  anchor: Exclude<WindowAnchor, { kind: 'finish_by_sunrise' }>,
  dateLocal: string,
  timezone: string,
  seconds: number,
  sunrise: number,
  minTempF: number | null,
): RunWindow {
  const { start, finish } = placeAtTime(anchor, dateLocal, timezone, seconds);
  return { start, finish, kind: finish <= sunrise ? 'pre_dawn' : 'post_sunrise', min_temp_f: minTempF };
}

function sunriseWindow(
  sunrise: number,
  seconds: number,
  minTempF: number | null,
  minTempThresholdF: number,
): RunWindow {
  const cold = minTempF !== null && minTempF < minTempThresholdF;
  return cold
    ? {
        start: sunrise + POST_SUNRISE_BUFFER_S,
        finish: sunrise + POST_SUNRISE_BUFFER_S + seconds,
        kind: 'post_sunrise',
        min_temp_f: minTempF,
      }
    : { start: sunrise - seconds, finish: sunrise, kind: 'pre_dawn', min_temp_f: minTempF };
}

/** Both coordinates present and finite. */
export function hasLocation(lat: number | null | undefined, lon: number | null | undefined): boolean {
  return isCoordinate(lat) && isCoordinate(lon);
}

function isCoordinate(value: number | null | undefined): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/**
 * Sunrise (epoch seconds, floored) at the location on the local date; null
 * in polar day or night. suncalc 2 answers null there (1.x gave an Invalid
 * Date): both are treated as no sunrise.
 */
export function sunriseEpoch(dateLocal: string, timezone: string, lat: number, lon: number): number | null {
  const key = `${dateLocal} ${timezone} ${lat} ${lon}`;
  const known = sunrises.get(key);
  if (known !== undefined) return known;
  if (sunrises.size >= SUNRISES_KEPT) sunrises.clear();
  const sunrise = computeSunriseEpoch(dateLocal, timezone, lat, lon);
  sunrises.set(key, sunrise);
  return sunrise;
}

/*
 * Sunrises already computed. Every recompute asks for the same dozen dates
 * (each zone, each plan day, the skip and the schedule), and suncalc's
 * arithmetic was a fifth of the idle service's garbage. A pure function of
 * its key, so a remembered answer is the answer; bounded, cleared whole when
 * full (a season replay walks a new date every simulated day).
 */
const SUNRISES_KEPT = 512;
const sunrises = new Map<string, number | null>();

function computeSunriseEpoch(dateLocal: string, timezone: string, lat: number, lon: number): number | null {
  const sunrise: Date | null | undefined = getTimes(
    new Date(localNoonMs(dateLocal, timezone)),
    lat,
    lon,
  ).sunrise;
  if (!sunrise) return null;
  const ms = sunrise.getTime();
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : null;
}

function resolveDate(input: RunWindowInput): string {
  if (input.dateLocal !== undefined) return input.dateLocal;
  if (input.epoch !== undefined) return localDateOf(input.epoch, input.timezone);
  throw new RangeError('runWindow needs dateLocal or epoch');
}
