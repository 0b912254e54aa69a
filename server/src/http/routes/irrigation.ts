import { lazySchema } from '../../core/zod-lazy';
import { epochSeconds } from '../../core/clock';
import { explainVerdict } from '../../irrigation/engine/explain';
import type { DomainRoutes, HttpDeps } from '../deps';
import { ApiError, badRequest } from '../errors';
import { sendEncoded } from '../encoded-json';
import { subscribe } from './stream';

/**
 * /irrigation/*: the snapshot and its stream, simulate, the plain-English
 * explanation, and the actions (spec 4.4): controls change persisted state;
 * run, stop and stop_all go through the dispatcher to the controllers.
 */

/**
 * How far from now a simulated `now_epoch` may lie. The engine's work grows
 * with the distance (about 150 ms per simulated year, in one event-loop turn),
 * so a simulation decades away held every other request for seconds.
 */
export const SIMULATE_WINDOW_S = 366 * 86400;

/** POST /irrigation/simulate body: parts of the engine's input to replace; everything else is live. */
export const scenarioSchema = lazySchema((z) =>
  z.strictObject({
    now_epoch: z.number().int().min(0).optional(),
    weather: z.record(z.string(), z.unknown()).optional(),
    forecast: z.record(z.string(), z.unknown()).optional(),
  }),
);

export function irrigationRoutes(deps: HttpDeps): DomainRoutes {
  const irrigation = deps.irrigation;
  // No answer: before a config exists there is nothing to decide; after, the engine failed (health says why).
  const noConfig = () =>
    deps.config.current
      ? new ApiError(503, 'engine_unavailable', 'the irrigation engine has no answer; GET /health says why', {
          note: irrigation.engineHealth().note,
        })
      : new ApiError(409, 'config_absent', 'no config yet: the engine has nothing to decide');
  return {
    shared: (scope) => {
      scope.get('/irrigation/snapshot', (request, reply) => {
        const snapshot = irrigation.snapshot();
        if (!snapshot) throw noConfig();
        return sendEncoded(request, reply, snapshot);
      });
      scope.get('/irrigation/stream', (request, reply) => subscribe(deps, 'irrigation', request, reply));

      // Spec 4.4 (shape not shown): {generated_epoch, source: llm|engine, text, engine_text, provider, model, note}.
      scope.get(
        '/irrigation/explanation',
        async () => (await deps.advisor.explanation()) ?? Promise.reject(noConfig()),
      );

      // Spec 4.4: `{anomalies: [{severity, type, description}]}`, cached an hour; each entry adds its subject, evidence and fix.
      scope.get('/irrigation/anomalies', async () => {
        const { generated_epoch, anomalies } = deps.anomalies.list();
        return { generated_epoch, anomalies };
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
        const now = epochSeconds(deps.clock);
        if (now_epoch !== undefined && Math.abs(now_epoch - now) > SIMULATE_WINDOW_S) {
          throw badRequest(
            'invalid_body',
            `now_epoch must lie within ${SIMULATE_WINDOW_S / 86400} days of now (${now - SIMULATE_WINDOW_S}..${now + SIMULATE_WINDOW_S})`,
          );
        }
        const live = current.snapshot;
        const result = irrigation.simulate({
          ...(now_epoch === undefined ? {} : { nowEpoch: now_epoch }),
          ...(weather ? { weather: { ...deps.weather.snapshot(), ...weather } as never } : {}),
          ...(forecast ? { forecast: { ...deps.forecast.snapshot(), ...forecast } as never } : {}),
        });
        if (!result) throw noConfig();
        const output = result.output;
        if (!output) {
          // The live input computes (checked above), so it is what the scenario replaced.
          throw badRequest('scenario_unusable', `the engine cannot decide on this scenario: ${result.error}`);
        }
        return {
          ...(result.degraded.length > 0 ? { degraded_controls: result.degraded } : {}),
          simulated: true,
          verdict: output.verdict,
          live_verdict: current.verdict,
          explanation: explainVerdict(output),
          snapshot: output.snapshot,
          live_snapshot_epoch: live.last_refresh_epoch,
        };
      });

      scope.post('/irrigation/action', async (request) => {
        const outcome = await deps.actions.execute(request.body);
        if (outcome.ok) return outcome.body;
        throw new ApiError(outcome.status, outcome.code, outcome.message, outcome.extra);
      });

      scope.get('/irrigation/shadow/snapshot', async () => ({ shadow: 'disabled' }));
      scope.get('/irrigation/shadow/diff', async () => ({ shadow: 'disabled' }));
    },
  };
}
