import type { z } from 'zod';
import { lazySchema } from '../../core/zod-lazy';
import {
  latestPauseEpoch,
  OVERRIDE_MODES,
  PAUSE_MAX_AHEAD_S,
  THRESHOLD_KEYS,
  THRESHOLD_RANGES,
  TOGGLE_KEYS,
  TOMORROW_MODES,
  thresholdInRange,
  thresholdRangeText,
  type OverrideMode,
  type ThresholdKey,
  type ToggleKey,
  type TomorrowMode,
} from './types';

/**
 * Validation of the control kinds of POST /irrigation/action (spec 4.4).
 * Pure: a JSON body in, a typed action or a 400 error object out; the route
 * turns the error into the spec 7 body (`error` = message, `code`, and the
 * extra fields `mapped_zones` and `hint` for zone_unknown).
 *
 * The controller kinds `run`, `stop` and `stop_all` are not controls: the
 * route dispatches them before calling this; passed here they answer
 * `action_unknown` naming that. Extra fields in a body are ignored.
 */

export type ControlAction =
  | { kind: 'set_threshold'; key: ThresholdKey; value: number }
  | { kind: 'toggle'; key: ToggleKey; on: boolean }
  | { kind: 'set_pause_until'; epoch: number }
  | { kind: 'clear_pause_until' }
  | { kind: 'set_override_tomorrow'; mode: TomorrowMode }
  | { kind: 'set_global_override'; mode: OverrideMode }
  | { kind: 'set_zone_override'; zone: string; mode: OverrideMode };

export type ControlActionKind = ControlAction['kind'];

export const CONTROL_ACTION_KINDS: readonly ControlActionKind[] = [
  'set_threshold',
  'toggle',
  'set_pause_until',
  'clear_pause_until',
  'set_override_tomorrow',
  'set_global_override',
  'set_zone_override',
];

/** Kinds of the same endpoint handled by the controller layer, not here. */
export const CONTROLLER_ACTION_KINDS = ['run', 'stop', 'stop_all'] as const;

export type ActionErrorCode =
  | 'invalid_body'
  | 'action_unknown'
  | 'action_removed'
  | 'threshold_unknown'
  | 'threshold_out_of_range'
  | 'toggle_unknown'
  | 'pause_out_of_range'
  | 'zone_unknown'
  | 'soil_date_out_of_range';

export interface ActionError {
  status: 400;
  code: ActionErrorCode;
  message: string;
  /** zone_unknown only: the zone slugs the action accepts. */
  mapped_zones?: string[];
  /** zone_unknown only. */
  hint?: string;
}

export type ParseActionResult = { ok: true; action: ControlAction } | { ok: false; error: ActionError };

export interface ActionContext {
  /** Slugs of the configured zones a zone override may name. */
  mappedZones: readonly string[];
  /** Epoch seconds now: the pause range is counted from it. */
  nowEpoch: number;
}

const kindOnly = lazySchema((z) => z.object({ kind: z.string() }));
const thresholdBody = lazySchema((z) => z.object({ key: z.string(), value: z.number() }));
const toggleBody = lazySchema((z) => z.object({ key: z.string(), on: z.boolean() }));
const pauseBody = lazySchema((z) => z.object({ epoch: z.number().int() }));
const tomorrowBody = lazySchema((z) => z.object({ mode: z.enum(TOMORROW_MODES) }));
const globalBody = lazySchema((z) => z.object({ mode: z.enum(OVERRIDE_MODES) }));
const zoneBody = lazySchema((z) => z.object({ zone: z.string(), mode: z.enum(OVERRIDE_MODES) }));

/** Each control kind's body beside `kind` (the API docs render these). */
export const CONTROL_ACTION_BODIES = {
  set_threshold: thresholdBody,
  toggle: toggleBody,
  set_pause_until: pauseBody,
  clear_pause_until: lazySchema((z) => z.object({})),
  set_override_tomorrow: tomorrowBody,
  set_global_override: globalBody,
  set_zone_override: zoneBody,
} as const satisfies Record<ControlActionKind, z.ZodObject>;

export function parseControlAction(body: unknown, context: ActionContext): ParseActionResult {
  const head = kindOnly.safeParse(body);
  if (!head.success) return fail('invalid_body', 'expected a JSON object with a string "kind"');
  const kind = head.data.kind;

  switch (kind) {
    case 'set_threshold': {
      const parsed = thresholdBody.safeParse(body);
      if (!parsed.success) return invalid(kind, parsed.error);
      const { key, value } = parsed.data;
      if (!isThresholdKey(key)) {
        return fail(
          'threshold_unknown',
          `unknown threshold "${key}"; expected one of ${THRESHOLD_KEYS.join(', ')}`,
        );
      }
      if (!thresholdInRange(key, value)) {
        return fail('threshold_out_of_range', `${thresholdRangeText(key)}; got ${value}`);
      }
      return ok({ kind, key, value });
    }
    case 'toggle': {
      const parsed = toggleBody.safeParse(body);
      if (!parsed.success) return invalid(kind, parsed.error);
      const { key, on } = parsed.data;
      if (!isToggleKey(key)) {
        return fail('toggle_unknown', `unknown toggle "${key}"; expected one of ${TOGGLE_KEYS.join(', ')}`);
      }
      return ok({ kind, key, on });
    }
    case 'set_pause_until': {
      const parsed = pauseBody.safeParse(body);
      if (!parsed.success) return invalid(kind, parsed.error);
      const { epoch } = parsed.data;
      const latest = latestPauseEpoch(context.nowEpoch);
      if (epoch < 0 || epoch > latest) {
        return fail(
          'pause_out_of_range',
          `epoch must be 0 (no pause) or a time in epoch seconds up to ${PAUSE_MAX_AHEAD_S / 86400} days ahead (at most ${latest}); got ${epoch}`,
        );
      }
      return ok({ kind, epoch });
    }
    case 'clear_pause_until':
      return ok({ kind });
    case 'set_override_tomorrow': {
      const parsed = tomorrowBody.safeParse(body);
      if (!parsed.success) return invalid(kind, parsed.error);
      return ok({ kind, mode: parsed.data.mode });
    }
    case 'set_global_override': {
      const parsed = globalBody.safeParse(body);
      if (!parsed.success) return invalid(kind, parsed.error);
      return ok({ kind, mode: parsed.data.mode });
    }
    case 'set_zone_override': {
      const parsed = zoneBody.safeParse(body);
      if (!parsed.success) return invalid(kind, parsed.error);
      const { zone, mode } = parsed.data;
      if (!context.mappedZones.includes(zone))
        return { ok: false, error: zoneUnknown(zone, context.mappedZones) };
      return ok({ kind, zone, mode });
    }
    case 'run_sequence_now':
      return fail(
        'action_removed',
        'run_sequence_now was removed; run zones one by one with kind "run" (earlier contract versions answered 410)',
      );
    default:
      if ((CONTROLLER_ACTION_KINDS as readonly string[]).includes(kind)) {
        return fail('action_unknown', `"${kind}" is a controller action, not a control`);
      }
      return fail(
        'action_unknown',
        `unknown action kind "${kind}"; expected one of ${[...CONTROLLER_ACTION_KINDS, ...CONTROL_ACTION_KINDS].join(', ')}`,
      );
  }
}

function ok(action: ControlAction): ParseActionResult {
  return { ok: true, action };
}

function fail(code: ActionErrorCode, message: string): ParseActionResult {
  return { ok: false, error: { status: 400, code, message } };
}

/** "set_threshold: value: expected number, received string" (first issue only). */
function invalid(kind: string, error: z.ZodError): ParseActionResult {
  const issue = error.issues[0];
  const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
  return fail('invalid_body', `${kind}: ${where}${issue?.message ?? 'invalid body'}`);
}

function isThresholdKey(key: string): key is ThresholdKey {
  return Object.hasOwn(THRESHOLD_RANGES, key);
}

function isToggleKey(key: string): key is ToggleKey {
  return (TOGGLE_KEYS as readonly string[]).includes(key);
}

export function zoneUnknown(zone: string, mapped: readonly string[]): ActionError {
  const mapped_zones = [...mapped].sort();
  const normalized = zone
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
  const near = mapped_zones.find((slug) => slug === normalized);
  let hint: string;
  if (mapped_zones.length === 0) hint = 'no zones are configured; add a [zones.<slug>] section first';
  else if (near) hint = `zone takes a slug: did you mean "${near}"?`;
  else hint = 'zone takes one of the slugs in mapped_zones';
  return { status: 400, code: 'zone_unknown', message: `unknown zone "${zone}"`, mapped_zones, hint };
}
