import type { z } from 'zod';
import { lazySchema } from '../../core/zod-lazy';
import { RUN_SECONDS_MAX } from '../dispatch/dispatcher';
import { zoneUnknown, type ActionContext, type ActionError } from './actions';

/**
 * Validation of the valve kinds of POST /irrigation/action (spec 4.4):
 * `run` {zone, seconds}, `stop` {zone}, `stop_all`. Pure. `seconds` above
 * 7200 is clamped (spec 8), not refused; zero, negative, fractional or
 * missing seconds are a 400.
 */

export type ValveAction =
  | { kind: 'run'; zone: string; seconds: number; requested_seconds: number }
  | { kind: 'stop'; zone: string }
  | { kind: 'stop_all' };

export const VALVE_ACTION_KINDS = ['run', 'stop', 'stop_all'] as const;

const runBody = lazySchema((z) => z.object({ zone: z.string().min(1), seconds: z.number().int().min(1) }));
const stopBody = lazySchema((z) => z.object({ zone: z.string().min(1) }));

/** Each valve kind's body beside `kind` (the API docs render these). */
export const VALVE_ACTION_BODIES = {
  run: runBody,
  stop: stopBody,
  stop_all: lazySchema((z) => z.object({})),
} as const satisfies Record<ValveAction['kind'], z.ZodObject>;

export type ParseValveResult = { ok: true; action: ValveAction } | { ok: false; error: ActionError };

export function isValveActionKind(kind: unknown): kind is ValveAction['kind'] {
  return typeof kind === 'string' && (VALVE_ACTION_KINDS as readonly string[]).includes(kind);
}

export function parseValveAction(
  body: { kind: ValveAction['kind'] },
  context: ActionContext,
): ParseValveResult {
  if (body.kind === 'stop_all') return { ok: true, action: { kind: 'stop_all' } };
  if (body.kind === 'stop') {
    const parsed = stopBody.safeParse(body);
    if (!parsed.success) return invalid('stop: zone: expected the zone slug');
    return known(parsed.data.zone, context) ?? { ok: true, action: { kind: 'stop', zone: parsed.data.zone } };
  }
  const parsed = runBody.safeParse(body);
  if (!parsed.success) return invalid('run: expected {zone: <slug>, seconds: <whole seconds >= 1>}');
  const { zone, seconds } = parsed.data;
  return (
    known(zone, context) ?? {
      ok: true,
      action: { kind: 'run', zone, seconds: Math.min(seconds, RUN_SECONDS_MAX), requested_seconds: seconds },
    }
  );
}

function known(zone: string, context: ActionContext): ParseValveResult | null {
  return context.mappedZones.includes(zone)
    ? null
    : { ok: false, error: zoneUnknown(zone, context.mappedZones) };
}

function invalid(message: string): ParseValveResult {
  return { ok: false, error: { status: 400, code: 'invalid_body', message } };
}
