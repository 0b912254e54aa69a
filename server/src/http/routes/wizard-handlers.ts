import { join } from 'node:path';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isPlainObject, type JsonObject } from '../../config/json-walk';
import { sourceSchema } from '../../config/schema';
import { redactSecrets } from '../../config/secrets';
import { REPOSITORY, SERVICE_VERSION } from '../../core/version';
import { listenForGateways } from '../../weather/discovery';
import { scanControllerZones, testController, type ControllerProbeDeps } from '../../wizard/controller-probe';
import { openMulticastDns, sweepControllers } from '../../wizard/controller-sweep';
import { DRAFT_FILE, DraftStore, type StoredDraft } from '../../wizard/draft-store';
import { NOMINATIM_SEARCH_URL } from '../../wizard/geocode';
import { Geocoder } from '../../wizard/geocoder';
import { probeLlm } from '../../wizard/llm-probe';
import { preparePostedEntry, storedEntryById } from '../../wizard/posted-entry';
import { wizardSteps } from '../../wizard/progress';
import { probeSoil } from '../../wizard/soil-probe';
import { WizardError } from '../../wizard/wizard-error';
import type { HttpDeps } from '../deps';
import { ApiError, badRequest } from '../errors';
import { queryFlag, queryString } from '../query';
import { write as writeConfig } from './config';

/**
 * The handlers of /wizard/* (spec 4.6; the route table is routes/wizard.ts).
 * This module and the wizard domain load on the first wizard request: an
 * installed instance rarely opens the wizard again, and idle memory counts.
 */

export type WizardHandler = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

export function wizardHandlers(deps: HttpDeps) {
  const log = deps.logger.child({ module: 'wizard' });
  const drafts = new DraftStore(join(deps.env.dataDir, DRAFT_FILE), deps.clock, log);
  const probeDeps: ControllerProbeDeps = {
    kinds: deps.controllerKinds,
    fetch: deps.fetch,
    clock: deps.clock,
    logger: log,
  };
  const storedDocument = (): JsonObject | null => deps.config.current?.document ?? null;
  const userAgent = `raincheck/${SERVICE_VERSION} (${REPOSITORY})`;
  const geocoderUrl = deps.env.vars.RAINCHECK_GEOCODER_URL || NOMINATIM_SEARCH_URL;
  const geocoder = new Geocoder({ fetch: deps.fetch, baseUrl: geocoderUrl, userAgent, clock: deps.clock });

  return {
    getDraft: async () => draftBody(drafts.read()),

    putDraft: async (request) => {
      const body = request.body;
      if (!isPlainObject(body)) throw badRequest('invalid_body', 'expected the draft as a JSON object');
      return draftBody(await wizard(() => drafts.write(body)));
    },

    deleteDraft: async () => ({ deleted: drafts.clear() }),

    apply: async (request) => {
      const stored = drafts.read();
      if (!stored) throw new ApiError(422, 'draft_absent', 'there is no wizard draft to apply');
      const candidate = withSoilScheduling(stored.draft);
      const result = await writeConfig(deps, () =>
        deps.config.save(candidate, {
          note: 'wizard apply',
          allowZoneKeyChange: queryFlag(request, 'allow_zone_key_change'),
        }),
      );
      drafts.clear();
      log.info({ revision: result.saved.revision }, 'wizard draft applied as the live config');
      return { applied: true, ...result };
    },

    state: async () => {
      const draft = drafts.read();
      const setupComplete = (deps.store?.accounts.count() ?? 0) > 0;
      return {
        config_present: deps.config.present,
        draft_present: draft !== null,
        draft_updated_epoch: draft?.updated_epoch ?? null,
        setup_complete: setupComplete,
        auth_required: deps.authRequired(),
        steps: wizardSteps({
          document: draft?.draft ?? storedDocument(),
          configPresent: deps.config.present,
          draftPresent: draft !== null,
          setupComplete,
        }),
      };
    },

    seedCurrent: async () => {
      const seededFrom = deps.config.present ? 'config' : 'baseline';
      return { seeded_from: seededFrom, ...draftBody(drafts.replace(deps.config.publicDocument())) };
    },

    testSource: async (_request, reply) => {
      const posted = objectField(_request, 'source');
      const parsed = sourceSchema.safeParse(posted);
      if (!parsed.success) {
        throw badRequest('invalid_source', 'the source entry is not well formed', {
          issues: parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
        });
      }
      reply.header('Deprecation', 'true');
      return { ok: true, deprecated: true, id: parsed.data.id, kind: parsed.data.kind };
    },

    testController: async (request) => {
      const posted = objectField(request, 'controller');
      return wizard(() => {
        const stored = storedEntryById(storedDocument(), 'controllers', posted.id);
        return testController(probeDeps, preparePostedEntry(posted, stored, deps.env.vars));
      });
    },

    scanZones: async (request) => {
      const posted = objectField(request, 'controller');
      return wizard(async () => {
        const stored = storedEntryById(storedDocument(), 'controllers', posted.id);
        const prepared = preparePostedEntry(posted, stored, deps.env.vars);
        return { zones: await scanControllerZones(probeDeps, prepared) };
      });
    },

    testLlm: async (request) => {
      const posted = objectField(request, 'llm');
      return wizard(() => {
        const stored = storedDocument()?.llm ?? null;
        return probeLlm(deps.fetch, preparePostedEntry(posted, stored, deps.env.vars));
      });
    },

    probeSoil: async (request) => {
      const body = request.body;
      if (!isPlainObject(body)) throw badRequest('invalid_body', 'expected {host, source_id?}');
      const { host, source_id: sourceId } = body;
      if (host !== undefined && host !== null && typeof host !== 'string') {
        throw badRequest('invalid_body', 'host must be a string');
      }
      if (sourceId !== undefined && sourceId !== null && typeof sourceId !== 'string') {
        throw badRequest('invalid_body', 'source_id must be a string');
      }
      return wizard(() => probeSoil({ fetch: deps.fetch, clock: deps.clock }, host ?? '', sourceId || null));
    },

    discover: async () => {
      const [broadcasts, mdns] = await Promise.all([
        listenForGateways(deps.discoveryListenMs, deps.discoveryPort),
        sweepControllers(deps.discoveryMdns ?? openMulticastDns, deps.discoveryListenMs),
      ]);
      return { ...broadcasts, controllers: mdns.controllers, controllers_note: mdns.note };
    },

    geocode: async (request) => {
      const q = queryString(request, 'q')?.trim() ?? '';
      if (q === '') throw badRequest('invalid_query', 'query parameter "q" (an address) is required');
      return wizard(() => geocoder.search(q));
    },
  } satisfies Record<string, WizardHandler>;
}

function draftBody(stored: StoredDraft | null): { draft: unknown; updated_epoch: number | null } {
  return {
    draft: stored ? redactSecrets(stored.draft) : null,
    updated_epoch: stored?.updated_epoch ?? null,
  };
}

/** New installs get the soil model (spec 2.6) unless the draft chose one. */
function withSoilScheduling(draft: JsonObject): JsonObject {
  const engine = draft.engine;
  if (engine !== undefined && !isPlainObject(engine)) return draft; // the validator reports it
  if (engine?.scheduling_model !== undefined && engine.scheduling_model !== null) return draft;
  return { ...draft, engine: { ...engine, scheduling_model: 'soil' } };
}

/** `body[name]` when it is an object; 400 otherwise. */
function objectField(request: FastifyRequest, name: string): JsonObject {
  const body = request.body;
  const value = isPlainObject(body) ? body[name] : undefined;
  if (!isPlainObject(value)) throw badRequest('invalid_body', `expected {${name}: {...}}`);
  return value;
}

/** Runs wizard domain code, turning its refusals into API errors. */
async function wizard<T>(run: () => T | Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof WizardError) throw new ApiError(err.status, err.code, err.message, err.extra);
    throw err;
  }
}
