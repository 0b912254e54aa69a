import { z } from 'zod';
import { isPublicPath } from '../auth/public-paths';
import { SESSION_COOKIE } from '../auth/request-auth';
import { configSchema } from '../config/schema';
import { API_PREFIX, API_VERSION, LEGACY_API_PREFIX, LICENSE, SERVICE_VERSION } from '../core/version';
import {
  ARCHIVE_LEAD_MAX_H,
  ARCHIVE_LIMIT_DEFAULT,
  ARCHIVE_LIMIT_MAX,
  DEFAULT_TRACK,
} from '../forecast/archive-query';
import type { RegisteredRoute } from '../http/app';
import { credentialsBody, tokenBody } from '../http/routes/auth';
import { routesBody, testBody } from '../http/routes/notifications';
import { subscribeBody, unsubscribeBody } from '../http/routes/push';
import { scenarioSchema } from '../http/routes/irrigation';
import { bindingBody, calibrationBody, nameBody } from '../http/routes/soil-probe-bodies';
import { CONTROL_ACTION_BODIES } from '../irrigation/controls/actions';
import { VALVE_ACTION_BODIES } from '../irrigation/controls/valve-actions';
import { SOIL_ACTION_BODIES } from '../irrigation/controls/soil-actions';
import { SCHEDULE_ACTION_BODIES } from '../irrigation/controls/schedule-actions';
import { DAYS_RULES } from '../irrigation/history/query';
import { applyBody, dismissBody, undismissBody } from '../irrigation/tuning/bodies';
import { ACCEPTED_EXTENSIONS } from '../photos/sniff';
import { compareText } from '../core/compare';

/**
 * GET /docs/openapi.json: an OpenAPI 3.1 document of the routes this build
 * registered. The route list is not written by hand: it is what fastify
 * registered (collected by createApp's onRoute hook), so a new route appears
 * here without anyone remembering to add it. What a route takes comes from
 * the zod schemas its handler validates with (z.toJSONSchema, JSON Schema
 * 2020-12, the dialect of OpenAPI 3.1); query parameters of the hand-parsed
 * read endpoints are described from the same constants their parsers use.
 *
 * Paths are from the origin root (`/api/v1/...`, `/metrics`); the legacy
 * `/api` alias of a shared route is named in `x-legacy-alias` instead of
 * being listed twice. The server URL is relative (`..`, the directory above
 * /docs/), so the document works under HA's ingress prefix.
 */

type Json = Record<string, unknown>;

export interface OpenApiInput {
  routes: readonly RegisteredRoute[];
  /** The privileged preHandler (deps.privileged): routes carrying it are marked `x-privileged`. */
  privileged: unknown;
}

export interface OpenApiDocument {
  openapi: '3.1.0';
  jsonSchemaDialect: string;
  info: Json;
  servers: Json[];
  tags: Json[];
  paths: Record<string, Record<string, Json>>;
  components: { schemas: Record<string, Json>; securitySchemes: Json; responses: Json };
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options'] as const;
const CREDENTIALS = [{ bearerAuth: [] }, { cookieAuth: [] }];

function schemaOf(schema: z.ZodType): Json {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Json;
  delete json.$schema;
  return json;
}

function actionSchema(): Json {
  const bodies = {
    ...VALVE_ACTION_BODIES,
    ...CONTROL_ACTION_BODIES,
    ...SOIL_ACTION_BODIES,
    ...SCHEDULE_ACTION_BODIES,
  } as Record<string, z.ZodObject>;
  const [first, ...rest] = Object.entries(bodies).map(([kind, body]) =>
    body.extend({ kind: z.literal(kind) }),
  );
  if (!first) throw new Error('no action kinds');
  const json = schemaOf(z.discriminatedUnion('kind', [first, ...rest]));
  return { ...json, discriminator: { propertyName: 'kind' } };
}

/** Named request schemas, under components.schemas. */
function componentSchemas(): Record<string, Json> {
  return {
    Error: {
      type: 'object',
      description: 'Spec 7: every failure the service generates; routes add fields of their own.',
      required: ['error', 'code', 'request'],
      properties: {
        error: { type: 'string' },
        code: { type: 'string', description: 'stable machine code; branch on it, not on the status' },
        diagnostic: { type: 'object' },
        request: {
          type: 'object',
          properties: { id: { type: 'string' }, method: { type: 'string' }, route: { type: 'string' } },
        },
      },
    },
    Config: schemaOf(configSchema),
    ConfigPreviewRequest: {
      type: 'object',
      required: ['candidate'],
      properties: { candidate: { $ref: '#/components/schemas/Config' } },
    },
    ConfigRollbackRequest: {
      type: 'object',
      properties: { ts: { type: ['string', 'number'], description: 'a snapshot ts from /config/snapshots' } },
    },
    IrrigationScenario: schemaOf(scenarioSchema),
    TuningApplyRequest: schemaOf(applyBody),
    TuningDismissRequest: schemaOf(dismissBody),
    TuningUndismissRequest: schemaOf(undismissBody),
    IrrigationAction: actionSchema(),
    AuthCredentials: schemaOf(credentialsBody),
    TokenRequest: schemaOf(tokenBody),
    PushSubscription: schemaOf(subscribeBody),
    PushUnsubscribe: schemaOf(unsubscribeBody),
    NotificationRoutes: schemaOf(routesBody),
    NotificationTest: schemaOf(testBody),
    SoilProbeCalibration: schemaOf(calibrationBody),
    SoilProbeBinding: schemaOf(bindingBody),
    SoilProbeName: schemaOf(nameBody),
    ZonePhotoUpload: {
      type: 'object',
      required: ['file'],
      properties: {
        file: {
          type: 'string',
          contentMediaType: 'application/octet-stream',
          description: `one image of type ${ACCEPTED_EXTENSIONS.join(', ')}, at most 10 MB; SVG is refused`,
        },
      },
    },
    ZonePhoto: {
      type: 'object',
      required: ['url', 'filename'],
      properties: {
        url: { type: 'string', description: 'relative to the origin root: site/photos/<filename>' },
        filename: { type: 'string', pattern: '^[a-f0-9]{32}\\.(jpg|png|gif|webp)$' },
      },
    },
  };
}

function json(ref: string): Json {
  return {
    required: true,
    content: { 'application/json': { schema: { $ref: `#/components/schemas/${ref}` } } },
  };
}

/** Request bodies by `METHOD path` below the API prefix (or from the root for root routes). */
const REQUEST_BODIES: Record<string, Json> = {
  'PUT /config': json('Config'),
  'POST /config/preview': json('ConfigPreviewRequest'),
  'POST /config/rollback': { ...json('ConfigRollbackRequest'), required: false },
  'PUT /config/raw': {
    required: true,
    content: { 'application/toml': { schema: { type: 'string', description: 'the whole config as TOML' } } },
  },
  'POST /irrigation/simulate': { ...json('IrrigationScenario'), required: false },
  'POST /irrigation/action': json('IrrigationAction'),
  'POST /irrigation/tuning/dismiss': json('TuningDismissRequest'),
  'POST /irrigation/tuning/undismiss': json('TuningUndismissRequest'),
  'POST /config/zones/apply': json('TuningApplyRequest'),
  'POST /auth/setup': json('AuthCredentials'),
  'POST /auth/login': json('AuthCredentials'),
  'POST /auth/tokens': json('TokenRequest'),
  'POST /push/subscribe': json('PushSubscription'),
  'POST /push/unsubscribe': json('PushUnsubscribe'),
  'PUT /notifications/routes': json('NotificationRoutes'),
  'POST /notifications/test': { ...json('NotificationTest'), required: false },
  'PUT /sensors/soil/calibration': json('SoilProbeCalibration'),
  'PUT /sensors/soil/binding': json('SoilProbeBinding'),
  'PUT /sensors/soil/name': json('SoilProbeName'),
  'POST /zones/photo': {
    required: true,
    content: {
      'multipart/form-data': {
        schema: { $ref: '#/components/schemas/ZonePhotoUpload' },
        encoding: { file: { contentType: 'image/jpeg, image/png, image/gif, image/webp' } },
      },
    },
  },
  'POST /backup/restore': {
    required: true,
    content: {
      'multipart/form-data': {
        schema: {
          type: 'object',
          required: ['file'],
          properties: {
            file: {
              type: 'string',
              contentMediaType: 'application/octet-stream',
              description:
                'a backup bundle (tar.gz from GET /backup), a bare config (TOML) or a bare database (SQLite)',
            },
          },
        },
      },
    },
  },
  'POST /system/restart': {
    required: false,
    content: {
      'application/json': {
        schema: {
          type: 'object',
          properties: { force: { type: 'boolean', description: 'restart even while zones water' } },
        },
      },
    },
  },
};

function query(name: string, schema: Json, description: string, required = false): Json {
  return { name, in: 'query', required, description, schema };
}

const epoch = { type: 'integer', minimum: 0 };
const track = query('track', { type: 'string', default: DEFAULT_TRACK }, '`merged` or an extra model id');
const lat = query('lat', { type: 'number', minimum: -90, maximum: 90 }, 'latitude', true);
const lon = query('lon', { type: 'number', minimum: -180, maximum: 180 }, 'longitude', true);
const allowRename = query('allow_zone_key_change', { type: 'string' }, '`1` lets a write rename zone keys');

function days(rule: { fallback: number; min: number; max: number; outOfRange: string }): Json {
  return query(
    'days',
    { type: 'integer', minimum: rule.min, maximum: rule.max, default: rule.fallback },
    rule.outOfRange === 'clamp' ? 'clamped to the range' : 'outside the range: 400 invalid_query',
  );
}

/** Query parameters by `METHOD path`, from the constants the hand-written parsers use. */
const QUERY_PARAMETERS: Record<string, Json[]> = {
  'GET /health': [query('strict', { type: 'string', enum: ['1'] }, '503 unless status is ok')],
  'GET /location/timezone': [lat, lon],
  'GET /location/elevation': [lat, lon],
  'GET /forecast/window': [
    track,
    query('from', epoch, 'inclusive hour start (epoch seconds)', true),
    query('to', epoch, 'inclusive hour start, at most 48 hours after from', true),
  ],
  'GET /forecast/archive': [
    track,
    query('from', epoch, 'inclusive target hour (epoch seconds)', true),
    query('to', epoch, 'inclusive target hour, at most 400 days after from', true),
    query('lead_h', { type: 'integer', minimum: 0, maximum: ARCHIVE_LEAD_MAX_H }, 'forecast lead in hours'),
    query(
      'limit',
      { type: 'integer', minimum: 1, maximum: ARCHIVE_LIMIT_MAX, default: ARCHIVE_LIMIT_DEFAULT },
      'rows per page',
    ),
    query('cursor', { type: 'string' }, 'next_cursor of the previous page'),
  ],
  'GET /irrigation/history': [days(DAYS_RULES.history)],
  'GET /irrigation/decisions': [days(DAYS_RULES.decisions)],
  'GET /irrigation/export': [
    days(DAYS_RULES.export),
    query('format', { type: 'string', enum: ['csv', 'json'], default: 'csv' }, 'case-insensitive'),
  ],
  'GET /irrigation/accuracy': [days(DAYS_RULES.accuracy)],
  'GET /irrigation/tuning': [days(DAYS_RULES.tuning)],
  'GET /irrigation/soil': [
    query('zone', { type: 'string' }, 'a configured zone slug (400 zone_unknown otherwise)', true),
    days(DAYS_RULES.soil),
  ],
  'GET /radar/windgrid': [query('bbox', { type: 'string' }, 'south,west,north,east in degrees')],
  'GET /radar/precip': [query('bbox', { type: 'string' }, 'south,west,north,east in degrees')],
  'PUT /config': [allowRename],
  'PUT /config/raw': [allowRename],
  'POST /config/rollback': [query('to', { type: 'string' }, 'legacy form of {ts}')],
  'POST /backup/restore': [
    query('dry_run', { type: 'string', enum: ['1'] }, 'check and answer what would change; change nothing'),
  ],
  'DELETE /sensors/soil/probe': [
    query(
      'sensor_id',
      { type: 'string' },
      'the probe to unbind, uncalibrate and unname; 400 invalid_query when absent',
      true,
    ),
  ],
  'DELETE /sensors/soil/calibration': [
    query(
      'sensor_id',
      { type: 'string' },
      'the probe (source:<id>:<key>); 400 invalid_query when absent',
      true,
    ),
  ],
  'GET /diagnostics': [query('download', { type: 'string', enum: ['1'] }, 'answer as an attachment')],
};

const SUCCESS: Record<string, [string, Json]> = {
  'POST /zones/photo': ['201', { $ref: '#/components/schemas/ZonePhoto' }],
  'POST /system/restart': [
    '202',
    {
      type: 'object',
      required: ['mode'],
      properties: { mode: { type: 'string', enum: ['supervisor', 'exit'] } },
    },
  ],
};

/** Error answers worth naming beyond the shared `default`: status -> the codes it carries. */
const ERRORS: Record<string, Record<string, string>> = {
  'POST /irrigation/action': {
    '400': 'zone_unknown, invalid_body, zone_unbound, master_unbound, schedule_unknown, and the action codes',
    '502': "master_unavailable (the zone's master valve or pump did not open), and the controller codes",
    '409':
      'controller_busy; restricted_day, restricted_hours, restriction_daily_limit (the watering restrictions forbid the run now, docs/configuration.md)',
  },
};

function namedErrors(key: string): Json {
  return Object.fromEntries(
    Object.entries(ERRORS[key] ?? {}).map(([status, codes]) => [
      status,
      { $ref: '#/components/responses/Error', description: `codes: ${codes}` },
    ]),
  );
}

/** `/api/v1/auth/tokens/:id` -> `/api/v1/auth/tokens/{id}` and its parameter names. */
function openApiPath(url: string): { path: string; params: string[] } {
  const params: string[] = [];
  const path = url
    .split('/')
    .map((segment) => {
      if (segment.startsWith(':')) {
        params.push(segment.slice(1));
        return `{${segment.slice(1)}}`;
      }
      if (segment === '*') {
        params.push('wildcard');
        return '{wildcard}';
      }
      return segment;
    })
    .join('/');
  return { path, params };
}

/** The path below `/api/v1`, or the root path for root routes. */
function localPath(path: string): string {
  return path.startsWith(`${API_PREFIX}/`) ? path.slice(API_PREFIX.length) : path;
}

function tagOf(path: string): string {
  return localPath(path).split('/')[1] || 'root';
}

export function buildOpenApi(input: OpenApiInput): OpenApiDocument {
  const paths: OpenApiDocument['paths'] = {};
  const tags = new Set<string>();
  const legacy = new Map<string, string>();
  for (const route of input.routes) {
    if (route.url.startsWith(`${LEGACY_API_PREFIX}/`) && !route.url.startsWith(`${API_PREFIX}/`)) {
      legacy.set(`${route.method} ${API_PREFIX}${route.url.slice(LEGACY_API_PREFIX.length)}`, route.url);
    }
  }
  for (const route of input.routes) {
    const method = route.method.toLowerCase();
    if (!(METHODS as readonly string[]).includes(method)) continue;
    const isLegacy = route.url.startsWith(`${LEGACY_API_PREFIX}/`) && !route.url.startsWith(`${API_PREFIX}/`);
    const canonical = `${route.method} ${API_PREFIX}${route.url.slice(LEGACY_API_PREFIX.length)}`;
    // A legacy alias of a route also under /api/v1 is named on that operation, not listed again.
    if (isLegacy && input.routes.some((r) => `${r.method} ${r.url}` === canonical)) continue;
    const { path, params } = openApiPath(route.url);
    const key = `${route.method} ${localPath(path)}`;
    const tag = tagOf(path);
    tags.add(tag);
    const publicPath = isPublicPath(route.url, true);
    const [status, schema] = SUCCESS[key] ?? ['200', null];
    const operation: Json = {
      operationId: `${method}${path.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+(.)?/g, (_m, c?: string) => (c ? c.toUpperCase() : ''))}`,
      tags: [tag],
      summary: `${route.method} ${path}`,
      security: publicPath
        ? []
        : path.endsWith('/stream')
          ? [...CREDENTIALS, { accessToken: [] }]
          : CREDENTIALS,
      parameters: [
        ...params.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
        ...(QUERY_PARAMETERS[key] ?? []),
      ],
      responses: {
        [status]: schema
          ? { description: 'OK', content: { 'application/json': { schema } } }
          : { description: 'OK' },
        ...namedErrors(key),
        default: { $ref: '#/components/responses/Error' },
      },
    };
    const body = REQUEST_BODIES[key];
    if (body) operation.requestBody = body;
    if (isLegacy) operation.deprecated = true;
    const alias = legacy.get(`${route.method} ${route.url}`);
    if (alias) operation['x-legacy-alias'] = openApiPath(alias).path;
    if (route.preHandlers.includes(input.privileged)) operation['x-privileged'] = true;
    if (!publicPath && isPublicPath(route.url, false)) operation['x-public-until-setup'] = true;
    (paths[path] ??= {})[method] = operation;
  }
  const sorted = Object.fromEntries(Object.entries(paths).sort(([a], [b]) => compareText(a, b)));
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'Raincheck',
      version: API_VERSION,
      summary: 'Self-hosted weather and irrigation service',
      description:
        `Service ${SERVICE_VERSION}, API ${API_VERSION}. Every path under ${API_PREFIX} marked with ` +
        `x-legacy-alias is also served under the legacy ${LEGACY_API_PREFIX} prefix. Operations with an ` +
        'empty security list are public; x-privileged operations also pass the privileged policy (spec 5.8).',
      license: { name: LICENSE, identifier: LICENSE },
    },
    servers: [{ url: '..', description: 'the service root (relative to this document)' }],
    tags: [...tags].sort().map((name) => ({ name })),
    paths: sorted,
    components: {
      schemas: componentSchemas(),
      securitySchemes: {
        bearerAuth: { type: 'http', scheme: 'bearer', description: 'an API token' },
        cookieAuth: { type: 'apiKey', in: 'cookie', name: SESSION_COOKIE, description: 'POST /auth/login' },
        accessToken: {
          type: 'apiKey',
          in: 'query',
          name: 'access_token',
          description: 'an API token; honored only on paths ending in /stream',
        },
      },
      responses: {
        Error: {
          description: 'the spec 7 error body',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
        },
      },
    },
  };
}
