import type { FastifyInstance, FastifyRequest } from 'fastify';
import { IngestRejected, type IngestSource } from '../../weather/source';
import type { DomainRoutes, HttpDeps } from '../deps';
import { jsonTextTooDeep, MAX_NESTING } from '../../core/nesting';
import { ApiError } from '../errors';
import { queryString } from '../query';
import { once } from '../../core/zod-lazy';

/**
 * Push receivers (spec 4.8): POST /ingest/gateway (Ecowitt custom upload,
 * matched to a source by its PASSKEY; GET for the console's Wunderground
 * protocol, matched by its PASSWORD) and POST /ingest/webhook/{id} (generic
 * JSON, per-source secret). Served at the origin root and under /api/v1,
 * unauthenticated by design. 200 on a successful parse; 400 with a code when
 * the body does not parse (nothing of it is kept); 404 for an unknown target.
 */

interface PasskeySource extends IngestSource {
  matchesPasskey(passkey: string): boolean;
}

interface SecretSource extends IngestSource {
  matchesSecret(secret: string): boolean;
}

/** The Ecowitt upload parser, loaded on the first upload (an idle service without a gateway never needs it). */
type EcowittUpload = typeof import('../../weather/sources/ecowitt/ingest-source');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const ecowittUpload = once(() => require('../../weather/sources/ecowitt/ingest-source') as EcowittUpload);

export const WEBHOOK_TOKEN_HEADER = 'x-raincheck-token';

export function ingestRoutes(deps: HttpDeps): DomainRoutes {
  const table = (scope: FastifyInstance) => {
    void scope.register(async (ingest) => {
      // Gateways send form bodies, sometimes with no content type: take every body as text here.
      ingest.removeAllContentTypeParsers();
      ingest.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
      ingest.post('/ingest/gateway', async (request) => receiveGateway(deps, request, request.body));
      // The console's Wunderground-protocol upload is a GET whose query string is the body.
      ingest.get('/ingest/gateway', async (request) => receiveGateway(deps, request, queryText(request)));
      ingest.post('/ingest/webhook/:id', async (request) => receiveWebhook(deps, request));
    });
  };
  return { root: table, v1Only: table };
}

function receiveGateway(
  deps: HttpDeps,
  request: FastifyRequest,
  raw: unknown,
): { ok: true; source_id: string } {
  const body = typeof raw === 'string' ? raw : '';
  const { readUploadFields, uploadCredential } = ecowittUpload();
  const fields = readUploadFields(body, request.headers['content-type']);
  const passkey = fields ? uploadCredential(fields) : null;
  if (!passkey)
    throw new ApiError(400, 'ingest_unparseable', 'the upload carries no PASSKEY (or Wunderground PASSWORD)');
  const target = deps.weather
    .sourcesOfKind<PasskeySource>('ecowitt_ingest')
    .find(({ source }) => source.matchesPasskey(passkey));
  if (!target) {
    throw new ApiError(404, 'source_unknown', 'no ecowitt_ingest source has this PASSKEY', {
      hint: 'add a source of kind ecowitt_ingest with config.passkey set to the gateway PASSKEY',
    });
  }
  ingestInto(target.source, body, request.headers['content-type']);
  return { ok: true, source_id: target.entry.id };
}

function receiveWebhook(deps: HttpDeps, request: FastifyRequest): { ok: true; source_id: string } {
  const { id } = request.params as { id: string };
  const target = deps.weather
    .sourcesOfKind<SecretSource>('http_webhook')
    .find(({ entry }) => entry.id === id);
  if (!target) throw new ApiError(404, 'source_unknown', `no http_webhook source "${id}"`);
  const header = request.headers[WEBHOOK_TOKEN_HEADER];
  const secret = (typeof header === 'string' ? header : undefined) ?? queryString(request, 'token') ?? '';
  if (!target.source.matchesSecret(secret)) {
    throw new ApiError(403, 'ingest_forbidden', 'the webhook secret does not match this source');
  }
  const text = typeof request.body === 'string' ? request.body : '';
  if (jsonTextTooDeep(text)) {
    throw new ApiError(400, 'json_too_deep', `the webhook body nests deeper than ${MAX_NESTING} levels`);
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new ApiError(400, 'invalid_json', 'the webhook body is not valid JSON');
  }
  ingestInto(target.source, body, request.headers['content-type']);
  return { ok: true, source_id: target.entry.id };
}

function queryText(request: FastifyRequest): string {
  const at = request.url.indexOf('?');
  return at < 0 ? '' : request.url.slice(at + 1);
}

function ingestInto(source: IngestSource, body: unknown, contentType: string | undefined): void {
  try {
    source.ingest(body, contentType);
  } catch (err) {
    if (err instanceof IngestRejected) throw new ApiError(400, err.code, err.message);
    throw err;
  }
}
