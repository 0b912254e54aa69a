import express, { Router, type Request } from 'express';
import { z } from 'zod';
import { ConfigRejected, type SaveResult } from '../../config/config-service';
import { configSchema } from '../../config/schema';
import type { DomainRoutes, HttpDeps } from '../deps';
import { ApiError, badRequest } from '../errors';
import { queryFlag, queryString } from '../query';

/**
 * /config and its sub-resources (spec 4.5), plus GET /backup/snapshots.
 * Writes and the raw read are privileged; every write goes through the
 * ConfigService lock, validation, snapshot and atomic write.
 */

const RAW_LIMIT = '1mb';
const REJECTION_STATUS = { config_invalid: 422, zone_key_renamed: 422, snapshot_not_found: 404 } as const;

export function configRoutes(deps: HttpDeps): DomainRoutes {
  const shared = Router();
  const v1Only = Router();
  const rawBody = express.text({ type: () => true, limit: RAW_LIMIT });
  const jsonSchema = z.toJSONSchema(configSchema, { io: 'input', unrepresentable: 'any' });

  shared.get('/config', (_req, res) => {
    res.setHeader('X-Raincheck-Config-Present', String(deps.config.present));
    res.json(deps.config.publicDocument());
  });

  shared.get('/config/schema', (_req, res) => {
    res.json(jsonSchema);
  });

  shared.get('/config/validate', (_req, res) => {
    res.json(deps.config.validateStored());
  });

  shared.post('/config/preview', (req, res) => {
    const body = req.body as { candidate?: unknown } | undefined;
    if (!body || typeof body !== 'object' || !('candidate' in body)) {
      throw badRequest('invalid_body', 'expected {candidate: <config>}');
    }
    const report = deps.config.preview(body.candidate);
    res.json({ ok: report.ok, errors: report.errors, warnings: report.warnings });
  });

  const listSnapshots: express.RequestHandler = (_req, res) => {
    res.json({ snapshots: deps.config.listSnapshots() });
  };
  shared.get('/config/snapshots', listSnapshots);
  v1Only.get('/backup/snapshots', listSnapshots);

  shared.put('/config', deps.privileged, async (req, res) => {
    if (!req.body || typeof req.body !== 'object' || Array.isArray(req.body)) {
      throw badRequest('invalid_body', 'expected the whole config as a JSON object');
    }
    const result = await write(deps, () =>
      deps.config.save(req.body, { note: 'before PUT /config', allowZoneKeyChange: allowRename(req) }),
    );
    res.json(result);
  });

  shared.post('/config/rollback', deps.privileged, async (req, res) => {
    const ts = rollbackTarget(req);
    const result = await write(deps, () => deps.config.rollback(ts));
    res.json({ restored: ts, ...result });
  });

  shared.get('/config/raw', deps.privileged, (_req, res) => {
    const text = deps.config.rawText();
    if (text === null) throw new ApiError(404, 'config_absent', 'no config file exists yet');
    res.type('application/toml; charset=utf-8').send(text);
  });

  shared.put('/config/raw', deps.privileged, rawBody, async (req, res) => {
    if (typeof req.body !== 'string' || req.body.trim() === '') {
      throw badRequest('invalid_body', 'expected the whole config as TOML text');
    }
    const result = await write(deps, () =>
      deps.config.saveRaw(req.body as string, {
        note: 'before PUT /config/raw',
        allowZoneKeyChange: allowRename(req),
      }),
    );
    res.json(result);
  });

  return { shared, v1Only };
}

function allowRename(req: Request): boolean {
  return queryFlag(req, 'allow_zone_key_change');
}

/** `{ts}` in the body, or the legacy `?to=<ts>`. */
function rollbackTarget(req: Request): string {
  const body = req.body as { ts?: unknown } | undefined;
  const fromBody = body && typeof body === 'object' ? body.ts : undefined;
  const ts =
    typeof fromBody === 'number'
      ? String(fromBody)
      : typeof fromBody === 'string'
        ? fromBody
        : queryString(req, 'to');
  if (!ts) throw badRequest('invalid_body', 'expected {ts: <snapshot ts>} or ?to=<snapshot ts>');
  return ts;
}

/** Runs a config write, counting its outcome and mapping refusals to their status and code. */
async function write(deps: HttpDeps, run: () => Promise<SaveResult>): Promise<SaveResult> {
  try {
    const result = await run();
    deps.metrics.configSaves.inc({ outcome: 'saved' });
    return result;
  } catch (err) {
    if (!(err instanceof ConfigRejected)) throw err;
    deps.metrics.configSaves.inc({ outcome: err.code });
    const message = err.code === 'config_invalid' ? 'config_invalid' : err.message;
    throw new ApiError(REJECTION_STATUS[err.code], err.code, message, err.details);
  }
}
