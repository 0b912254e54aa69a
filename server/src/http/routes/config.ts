import type { FastifyInstance, FastifyRequest } from 'fastify';
import { zod } from '../../core/zod-lazy';
import { ConfigRejected, type ConfigRejectionCode, type SaveResult } from '../../config/config-service';
import { configSchemaModule } from '../../config/schema-module';
import type { DomainRoutes, HttpDeps } from '../deps';
import { ApiError, badRequest } from '../errors';
import { queryFlag, queryString } from '../query';
import { tuningCall } from './irrigation-tuning';

/**
 * /config and its sub-resources (spec 4.5), plus GET /backup/snapshots.
 * Writes and the raw read are privileged; every write goes through the
 * ConfigService lock, validation, snapshot and atomic write.
 */

const REJECTION_STATUS: Record<ConfigRejectionCode, number> = {
  config_invalid: 422,
  zone_key_renamed: 422,
  snapshot_not_found: 404,
  unmatched_redacted_secret: 400,
  transport_field_mismatch: 400,
};

export function configRoutes(deps: HttpDeps): DomainRoutes {
  let jsonSchema: unknown = null;
  const listSnapshots = async () => ({ snapshots: deps.config.listSnapshots() });

  return {
    shared: (scope) => {
      scope.get('/config', async (_request, reply) => {
        reply.header('X-Raincheck-Config-Present', String(deps.config.present));
        return deps.config.publicDocument();
      });

      // Built (and its builder and the config schema loaded) on first use: most instances never
      // ask, and it is a large object to keep.
      scope.get('/config/schema', async () => {
        jsonSchema ??= loadFormSchema().configFormSchema(zod(), configSchemaModule().configSchema);
        return jsonSchema;
      });

      scope.get('/config/validate', async () => deps.config.validateStored());

      scope.post('/config/preview', async (request) => {
        const body = request.body as { candidate?: unknown } | undefined;
        if (!body || typeof body !== 'object' || !('candidate' in body)) {
          throw badRequest('invalid_body', 'expected {candidate: <config>}');
        }
        const report = deps.config.preview(body.candidate);
        return { ok: report.ok, errors: report.errors, warnings: report.warnings };
      });

      scope.get('/config/snapshots', listSnapshots);

      scope.put('/config', { preHandler: deps.privileged }, async (request) => {
        const body = request.body;
        if (!body || typeof body !== 'object' || Array.isArray(body)) {
          throw badRequest('invalid_body', 'expected the whole config as a JSON object');
        }
        return write(deps, () =>
          deps.config.save(body, { note: 'before PUT /config', allowZoneKeyChange: allowRename(request) }),
        );
      });

      scope.post('/config/rollback', { preHandler: deps.privileged }, async (request) => {
        const ts = rollbackTarget(request);
        const result = await write(deps, () => deps.config.rollback(ts));
        return { restored: ts, ...result };
      });

      // Not in the spec's table: the web app's snapshot diff needs a snapshot's text (masked like /config/raw).
      scope.get<{ Params: { ts: string } }>(
        '/config/snapshots/:ts',
        { preHandler: deps.privileged },
        async (request, reply) => {
          const text = deps.config.snapshotText(request.params.ts);
          if (text === null) {
            throw new ApiError(404, 'snapshot_not_found', `no config snapshot "${request.params.ts}"`, {
              ts: request.params.ts,
            });
          }
          return reply.type('application/toml; charset=utf-8').send(text);
        },
      );

      scope.get('/config/raw', { preHandler: deps.privileged }, async (_request, reply) => {
        const text = deps.config.rawText();
        if (text === null) throw new ApiError(404, 'config_absent', 'no config file exists yet');
        return reply.type('application/toml; charset=utf-8').send(text);
      });

      // Spec 4.5: re-derived inside the write lock; without the database nothing derives.
      scope.post('/config/zones/apply', { preHandler: deps.privileged }, async (request) => {
        const tuning = deps.tuning;
        if (!tuning) {
          throw new ApiError(
            409,
            'stale_recommendation',
            'no recommendation derives: the history database is unavailable',
          );
        }
        return tuningCall(() => tuning.apply(request.body, (run) => write(deps, run)));
      });

      void scope.register(async (raw) => rawWriteRoute(raw, deps));
    },
    v1Only: (scope) => {
      scope.get('/backup/snapshots', listSnapshots);
    },
  };
}

/** PUT /config/raw takes the body as text whatever its declared content type. */
function rawWriteRoute(raw: FastifyInstance, deps: HttpDeps): void {
  raw.removeAllContentTypeParsers();
  raw.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
  raw.put('/config/raw', { preHandler: deps.privileged }, async (request) => {
    if (typeof request.body !== 'string' || request.body.trim() === '') {
      throw badRequest('invalid_body', 'expected the whole config as TOML text');
    }
    const text = request.body;
    return write(deps, () =>
      deps.config.saveRaw(text, { note: 'before PUT /config/raw', allowZoneKeyChange: allowRename(request) }),
    );
  });
}

function allowRename(request: FastifyRequest): boolean {
  return queryFlag(request, 'allow_zone_key_change');
}

/** `{ts}` in the body, or the legacy `?to=<ts>`. */
function rollbackTarget(request: FastifyRequest): string {
  const body = request.body as { ts?: unknown } | undefined;
  const fromBody = body && typeof body === 'object' ? body.ts : undefined;
  const ts =
    typeof fromBody === 'number'
      ? String(fromBody)
      : typeof fromBody === 'string'
        ? fromBody
        : queryString(request, 'to');
  if (!ts) throw badRequest('invalid_body', 'expected {ts: <snapshot ts>} or ?to=<snapshot ts>');
  return ts;
}

/** Runs a config write, counting its outcome and mapping refusals to their status and code. */
export async function write(deps: HttpDeps, run: () => Promise<SaveResult>): Promise<SaveResult> {
  try {
    const result = await run();
    deps.metrics.countConfigSave('saved');
    return result;
  } catch (err) {
    if (!(err instanceof ConfigRejected)) throw err;
    deps.metrics.countConfigSave(err.code);
    const message = err.code === 'config_invalid' ? 'config_invalid' : err.message;
    throw new ApiError(REJECTION_STATUS[err.code], err.code, message, err.details);
  }
}

function loadFormSchema(): typeof import('../../config/form-schema') {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require('../../config/form-schema') as typeof import('../../config/form-schema');
}
