import { epochSeconds, type Clock } from '../core/clock';
import { parseControlAction } from './controls/actions';
import { isValveActionKind, parseValveAction, type ValveAction } from './controls/valve-actions';
import {
  isSoilActionKind,
  parseSoilAction,
  SOIL_DECLARATION_MAX_AGE_DAYS,
  type SoilAction,
} from './controls/soil-actions';
import { localCalendar } from './skip/local-days';
import { isScheduleActionKind, parseScheduleAction } from './controls/schedule-actions';
import type { ScheduleSwitch } from './schedule/schedule-switch';
import type { SoilLedgerService } from './soil/soil-ledger-service';
import type { Dispatcher } from './dispatch/dispatcher';
import type { IrrigationService } from './irrigation-service';

/**
 * The one implementation of the irrigation actions (spec 4.4): POST
 * /irrigation/action and the MQTT command topics both call `execute` with a
 * tagged body, so they share validation, codes and effects. Controls change
 * persisted state and recompute; run, stop and stop_all go to the dispatcher.
 * Failures come back as values (status, code, message, extra): the HTTP
 * layer answers them, the MQTT layer logs them.
 */

export type ActionOutcome =
  | { ok: true; body: Record<string, unknown> }
  | { ok: false; status: number; code: string; message: string; extra: Record<string, unknown> };

export interface ActionExecutorDeps {
  irrigation: Pick<IrrigationService, 'zoneSlugs' | 'applyControl' | 'refresh' | 'timezone'>;
  dispatcher: Dispatcher;
  clock: Clock;
  /** The soil ledger (null without a database: a declared state has nowhere to live). */
  soil?: Pick<SoilLedgerService, 'declare'> | null;
  /** The fixed schedules' on/off switch (a config save); absent = no schedule can be switched. */
  schedules?: ScheduleSwitch | null;
}

export class ActionExecutor {
  constructor(private readonly deps: ActionExecutorDeps) {}

  async execute(body: unknown): Promise<ActionOutcome> {
    const context = {
      mappedZones: this.deps.irrigation.zoneSlugs(),
      nowEpoch: epochSeconds(this.deps.clock),
    };
    const kind = (body as { kind?: unknown } | null | undefined)?.kind;
    if (isValveActionKind(kind)) {
      const parsed = parseValveAction(body as { kind: typeof kind }, context);
      if (!parsed.ok) return refused(parsed.error);
      try {
        return { ok: true, body: await this.valve(parsed.action) };
      } catch (err) {
        return failure(err);
      }
    }
    if (isSoilActionKind(kind)) return this.soilAction(body, context);
    if (isScheduleActionKind(kind)) return this.scheduleAction(body);
    const parsed = parseControlAction(body, context);
    if (!parsed.ok) return refused(parsed.error);
    const snapshot = this.deps.irrigation.applyControl(parsed.action);
    return {
      ok: true,
      body: {
        ok: true,
        kind: parsed.action.kind,
        snapshot_epoch: snapshot?.last_refresh_epoch ?? epochSeconds(this.deps.clock),
      },
    };
  }

  /** set_schedule_enabled: saved to the config; the engine follows on config.changed. */
  private async scheduleAction(body: unknown): Promise<ActionOutcome> {
    const schedules = this.deps.schedules;
    const parsed = parseScheduleAction(body, schedules?.slugs() ?? []);
    if (!parsed.ok) return refused(parsed.error);
    try {
      await (schedules as ScheduleSwitch).setEnabled(parsed.action.schedule, parsed.action.enabled);
    } catch (err) {
      return failure(err);
    }
    const { kind, schedule, enabled } = parsed.action;
    return { ok: true, body: { ok: true, kind, schedule, enabled } };
  }

  /** declare_soil_state: recorded with source `owner`; the ledger replays from its date and the engine recomputes. */
  private soilAction(body: unknown, context: { mappedZones: string[]; nowEpoch: number }): ActionOutcome {
    const now = context.nowEpoch;
    const cal = localCalendar(this.deps.irrigation.timezone(), now);
    const oldest = cal.addDays(cal.today, -SOIL_DECLARATION_MAX_AGE_DAYS);
    const parsed = parseSoilAction(body, { ...context, today: cal.today, oldest });
    if (!parsed.ok) return refused(parsed.error);
    const soil = this.deps.soil;
    if (!soil) {
      return refused({
        status: 409,
        code: 'soil_ledger_unavailable',
        message: 'the database is not available: a declared soil state cannot be kept',
      });
    }
    const action: SoilAction = parsed.action;
    const date = action.date ?? cal.today;
    soil.declare({
      zone: action.zone,
      date_local: date,
      depletion_mm: 0,
      source: 'owner',
      epoch: now,
      note: action.state,
    });
    const snapshot = this.deps.irrigation.refresh();
    return {
      ok: true,
      body: {
        ok: true,
        kind: action.kind,
        zone: action.zone,
        state: action.state,
        date,
        source: 'owner',
        snapshot_epoch: snapshot?.last_refresh_epoch ?? now,
      },
    };
  }

  private async valve(action: ValveAction): Promise<Record<string, unknown>> {
    const dispatcher = this.deps.dispatcher;
    if (action.kind === 'run') {
      // The asked seconds: the dispatcher clamps them and its row says so.
      const started = await dispatcher.run({
        zone: action.zone,
        seconds: action.requested_seconds,
        requester: 'manual',
      });
      const { run } = started;
      return {
        ok: true,
        kind: 'run',
        zone: action.zone,
        seconds: started.seconds,
        clamped: action.requested_seconds !== started.seconds,
        session_id: run.sessionId,
        controller_id: run.route.controller_id,
        confirm_within_s: run.route.confirm_within_s,
      };
    }
    if (action.kind === 'stop') {
      const { scope, route } = await dispatcher.stop(action.zone);
      return {
        ok: true,
        kind: 'stop',
        zone: action.zone,
        scope,
        ...(scope === 'device'
          ? { note: `controller "${route.controller_id}" has no per-zone stop: every zone on it was stopped` }
          : {}),
        controller_id: route.controller_id,
        confirm_within_s: route.confirm_within_s,
      };
    }
    return stopAllBody(await dispatcher.stopAll());
  }
}

/**
 * stop_all answers per controller (docs/irrigation.md): every controller is
 * asked, each on its own. When at least one stopped (or none is configured)
 * the answer is 200 with `controllers` (each `{controller_id, ok,
 * confirm_within_s}` or `{controller_id, ok: false, status, code, error}`),
 * `ok` true only when all stopped, and `partial` true when some did not. When
 * none stopped, the worst failure is the status and code, with the same list.
 */
function stopAllBody({
  results,
  confirmWithinS,
}: Awaited<ReturnType<Dispatcher['stopAll']>>): Record<string, unknown> {
  const controllers = results.map((r) => {
    if (!r.error) return { controller_id: r.controller_id, ok: true, confirm_within_s: r.confirm_within_s };
    const e = r.error as { status?: unknown; code?: unknown };
    return {
      controller_id: r.controller_id,
      ok: false,
      status: typeof e.status === 'number' ? e.status : 502,
      code: typeof e.code === 'string' ? e.code : 'controller_unreachable',
      error: r.error.message,
    };
  });
  const failed = results.filter((r) => r.error !== null);
  if (results.length > 0 && failed.length === results.length) {
    const worst = [...failed].sort((a, b) => severity(b.error) - severity(a.error))[0]?.error as Error;
    throw new StopAllFailed(worst, controllers);
  }
  return {
    ok: failed.length === 0,
    kind: 'stop_all',
    confirm_within_s: confirmWithinS,
    controllers,
    ...(failed.length > 0 ? { partial: true } : {}),
  };
}

/** A stop_all that stopped nothing: the worst failure's status and code, every controller's outcome. */
class StopAllFailed extends Error {
  readonly status: number;
  readonly code: string;
  readonly extra: Record<string, unknown>;

  constructor(worst: Error, controllers: unknown[]) {
    super(worst.message);
    const e = worst as { status?: unknown; code?: unknown; extra?: unknown };
    this.status = typeof e.status === 'number' ? e.status : 502;
    this.code = typeof e.code === 'string' ? e.code : 'controller_unreachable';
    this.extra = { ...(typeof e.extra === 'object' && e.extra !== null ? e.extra : {}), controllers };
  }
}

/** Which failure speaks for a stop_all that stopped nothing: the one the owner must act on first. */
const SEVERITY: Record<string, number> = {
  controller_auth_failed: 4,
  controller_unsupported: 3,
  controller_rate_limited: 2,
  controller_unreachable: 1,
};

function severity(error: Error | null): number {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? (SEVERITY[code] ?? 0) : 0;
}

function refused(error: { status: number; code: string; message: string }): ActionOutcome {
  const { status, code, message, ...extra } = error;
  return { ok: false, status, code, message, extra };
}

/**
 * Controller and dispatch errors carry their spec status, code and extra
 * fields (controllers/errors.ts, dispatch/dispatch-error.ts); read
 * structurally, since irrigation does not import the controllers. Anything
 * else is rethrown: an unexpected failure is a 500, not a made-up code.
 */
function failure(err: unknown): ActionOutcome {
  const e = err as { status?: unknown; code?: unknown; message?: unknown; extra?: unknown } | null;
  if (e && typeof e.status === 'number' && typeof e.code === 'string' && typeof e.message === 'string') {
    const extra =
      typeof e.extra === 'object' && e.extra !== null ? { ...(e.extra as Record<string, unknown>) } : {};
    return { ok: false, status: e.status, code: e.code, message: e.message, extra };
  }
  throw err;
}
