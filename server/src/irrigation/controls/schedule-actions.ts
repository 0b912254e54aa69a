import type { z } from 'zod';
import { lazySchema } from '../../core/zod-lazy';

/**
 * The schedule kind of POST /irrigation/action (pure):
 * `set_schedule_enabled {schedule: <slug>, enabled: boolean}` turns a fixed
 * schedule on or off (Home Assistant's per-schedule switch sends it). The
 * slug is the schedule name's (config/schedule-config.ts `scheduleSlug`);
 * an unknown one is 400 `schedule_unknown` with the `schedules` it accepts.
 * The change is a config save (`[[schedules]].enabled`), so it lasts.
 */

export interface ScheduleAction {
  kind: 'set_schedule_enabled';
  schedule: string;
  enabled: boolean;
}

export const SCHEDULE_ACTION_KINDS = ['set_schedule_enabled'] as const;

const enableBody = lazySchema((z) => z.object({ schedule: z.string().min(1), enabled: z.boolean() }));

export const SCHEDULE_ACTION_BODIES = {
  set_schedule_enabled: enableBody,
} as const satisfies Record<ScheduleAction['kind'], z.ZodObject>;

export function isScheduleActionKind(kind: unknown): kind is ScheduleAction['kind'] {
  return typeof kind === 'string' && (SCHEDULE_ACTION_KINDS as readonly string[]).includes(kind);
}

export type ParseScheduleResult =
  | { ok: true; action: ScheduleAction }
  | { ok: false; error: { status: 400; code: string; message: string; schedules?: string[] } };

export function parseScheduleAction(body: unknown, schedules: readonly string[]): ParseScheduleResult {
  const parsed = enableBody.safeParse(body);
  if (!parsed.success) {
    return {
      ok: false,
      error: {
        status: 400,
        code: 'invalid_body',
        message: 'set_schedule_enabled: expected {schedule: <schedule slug>, enabled: true|false}',
      },
    };
  }
  const { schedule, enabled } = parsed.data;
  if (!schedules.includes(schedule)) {
    return {
      ok: false,
      error: {
        status: 400,
        code: 'schedule_unknown',
        message: `no schedule "${schedule}"; configured: ${schedules.length > 0 ? schedules.join(', ') : 'none'}`,
        schedules: [...schedules],
      },
    };
  }
  return { ok: true, action: { kind: 'set_schedule_enabled', schedule, enabled } };
}
