import { z } from 'zod';
import { epochSeconds } from '../../core/clock';
import { parseControlAction } from '../../irrigation/controls/actions';
import { explainVerdict } from '../../irrigation/engine/explain';
import type { DomainRoutes, HttpDeps } from '../deps';
import { ApiError, badRequest } from '../errors';
import { subscribe } from './stream';
import { toDispatchApiError } from '../dispatch-errors';
import {
  isValveActionKind,
  parseValveAction,
  type ValveAction,
} from '../../irrigation/controls/valve-actions';

/**
 * /irrigation/*: the snapshot and its stream, simulate, the plain-English
 * explanation, and the actions (spec 4.4): controls change persisted state;
 * run, stop and stop_all go through the dispatcher to the controllers.
 */

/** POST /irrigation/simulate body: parts of the engine's input to replace; everything else is live. */
const scenarioSchema = z.strictObject({
  now_epoch: z.number().int().min(0).optional(),
  weather: z.record(z.string(), z.unknown()).optional(),
  forecast: z.record(z.string(), z.unknown()).optional(),
});

export function irrigationRoutes(deps: HttpDeps): DomainRoutes {
  const irrigation = deps.irrigation;
  const noConfig = () =>
    new ApiError(409, 'config_absent', 'no config yet: the engine has nothing to decide');
  return {
    shared: (scope) => {
      scope.get('/irrigation/snapshot', async () => irrigation.snapshot() ?? Promise.reject(noConfig()));
      scope.get('/irrigation/stream', (request, reply) => subscribe(deps, 'irrigation', request, reply));

      scope.get('/irrigation/explanation', async () => {
        const output = irrigation.latestOutput();
        if (!output) throw noConfig();
        return { generated_epoch: epochSeconds(deps.clock), source: 'engine', text: explainVerdict(output) };
      });

      scope.post('/irrigation/simulate', async (request) => {
        const parsed = scenarioSchema.safeParse(request.body ?? {});
        if (!parsed.success) {
          throw badRequest('invalid_body', 'expected {now_epoch?, weather?, forecast?}', {
            issues: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`),
          });
        }
        const current = irrigation.latestOutput();
        if (!current) throw noConfig();
        const { now_epoch, weather, forecast } = parsed.data;
        const live = current.snapshot;
        const output = irrigation.simulate({
          ...(now_epoch === undefined ? {} : { nowEpoch: now_epoch }),
          ...(weather ? { weather: { ...deps.weather.snapshot(), ...weather } as never } : {}),
          ...(forecast ? { forecast: { ...deps.forecast.snapshot(), ...forecast } as never } : {}),
        });
        if (!output) throw noConfig();
        return {
          simulated: true,
          verdict: output.verdict,
          live_verdict: current.verdict,
          explanation: explainVerdict(output),
          snapshot: output.snapshot,
          live_snapshot_epoch: live.last_refresh_epoch,
        };
      });

      scope.post('/irrigation/action', async (request) => {
        const body = request.body as { kind?: unknown } | undefined;
        if (body && isValveActionKind(body.kind)) {
          const parsed = parseValveAction(body as { kind: typeof body.kind }, {
            mappedZones: irrigation.zoneSlugs(),
          });
          if (!parsed.ok) {
            const { status, code, message, ...extra } = parsed.error;
            throw new ApiError(status, code, message, extra);
          }
          return valveAction(deps, parsed.action).catch((err: unknown) =>
            Promise.reject(toDispatchApiError(err)),
          );
        }
        const parsed = parseControlAction(body, { mappedZones: irrigation.zoneSlugs() });
        if (!parsed.ok) {
          const { status, code, message, ...extra } = parsed.error;
          throw new ApiError(status, code, message, extra);
        }
        const snapshot = irrigation.applyControl(parsed.action);
        return { ok: true, kind: parsed.action.kind, snapshot_epoch: snapshot?.last_refresh_epoch ?? null };
      });

      scope.get('/irrigation/shadow/snapshot', async () => ({ shadow: 'disabled' }));
      scope.get('/irrigation/shadow/diff', async () => ({ shadow: 'disabled' }));
    },
  };
}

async function valveAction(deps: HttpDeps, action: ValveAction): Promise<Record<string, unknown>> {
  const dispatcher = deps.dispatcher;
  if (action.kind === 'run') {
    const started = await dispatcher.run({ zone: action.zone, seconds: action.seconds, requester: 'manual' });
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
        ? {
            note: `controller "${route.controller_id}" has no per-zone stop: every zone on it was stopped`,
          }
        : {}),
      controller_id: route.controller_id,
      confirm_within_s: route.confirm_within_s,
    };
  }
  const { failures, confirmWithinS } = await dispatcher.stopAll();
  const first = failures[0];
  if (first) throw first.error;
  return { ok: true, kind: 'stop_all', confirm_within_s: confirmWithinS };
}
