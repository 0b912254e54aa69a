import type { z } from 'zod';
import { lazySchema } from '../../core/zod-lazy';
import { epochSeconds } from '../../core/clock';
import { asControllerError, unsupported, type ControllerError } from '../errors';
import { controllerCall, readJson, type ControllerCallOptions } from '../http-call';
import { carriesDuration, durationValues, type DurationValues } from '../run-duration';
import type {
  AdapterContext,
  ControllerAdapter,
  ControllerCapabilities,
  ControllerKindDefinition,
  ControllerStatus,
  ScannedZone,
  StationState,
} from '../types';

/**
 * `http_generic`: any board that opens a valve on an HTTP request (ESP boards
 * with a small web server, Node-RED flows, home-made relays). The owner
 * describes each request as a template; this adapter fills in the station and
 * duration and maps failures to the spec 7 codes through controllerCall.
 *
 * Templates substitute `{station}`, `{seconds}`, `{minutes}` (seconds / 60
 * rounded up) and `{pulsetime}` (Tasmota PulseTime, controllers/run-duration.ts)
 * in one pass; a run template with a duration arms a device-side limit
 * (`device_limit`). Substitution is one pass, so a value that itself contains `{seconds}` is
 * never expanded again. Each substituted value is escaped for where it lands:
 * - URLs: encodeURIComponent, so a station such as `../x?y=1` stays one path
 *   segment or query value and can never add a path, a query or a fragment;
 * - bodies with a JSON content type (`...json...`): the value is written as
 *   the contents of a JSON string (JSON.stringify without its quotes), so
 *   quotes, backslashes and control characters are escaped. Put `"{station}"`
 *   inside quotes; `{seconds}` and `{minutes}` are digits and may stand bare.
 *   The template must be valid JSON with sample values (checked by the schema);
 * - bodies with `application/x-www-form-urlencoded`: encodeURIComponent;
 * - any other body content type: the value as is.
 * `stop` and `status` fill `{seconds}` / `{minutes}` with 0; `stop_all` also
 * fills `{station}` with ''. Without `stop_all`, every bound station gets its
 * own `stop` (all are tried; the last failure is thrown).
 *
 * Without `status` the board is fire-and-forget (no readback). With it, the
 * status document is fetched once per poll (or once per station when its URL
 * has `{station}`) and `running_pointer` (a JSON Pointer template, RFC 6901;
 * `{station}` is escaped as one pointer token) picks each station's state.
 */

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] as const;
const PLACEHOLDER = /\{(station|seconds|minutes|pulsetime)\}/g;
const SAMPLE_VALUES: TemplateValues = { station: '1', ...durationValues(60) };
/** Values at `running_pointer` that mean the valve is open (strings compared case-insensitively). */
const RUNNING_WORDS = new Set(['on', 'open', 'running', 'true', '1']);

// Built on first use (core/zod-lazy.ts): a boot from the validated-config cache loads no zod.
const configSchema = lazySchema((z) => {
  const urlTemplate = z
    .string()
    .min(1)
    .refine(
      isHttpUrlTemplate,
      'expected an http:// or https:// URL (placeholders {station}, {seconds}, {minutes}, {pulsetime})',
    );

  const actionSchema = z
    .looseObject({
      method: z.enum(METHODS).default('POST'),
      url: urlTemplate,
      body: z.string().nullish(),
      content_type: z.string().min(1).default('application/json'),
    })
    .superRefine((action, issues) => {
      if (action.body == null) return;
      if (action.method === 'GET') {
        issues.addIssue({ code: 'custom', path: ['body'], message: 'a GET request cannot carry a body' });
      } else if (isJsonContentType(action.content_type) && !rendersJson(action.body)) {
        issues.addIssue({
          code: 'custom',
          path: ['body'],
          message: 'the body is not valid JSON once its placeholders are filled in (quote "{station}")',
        });
      }
    });

  const statusSchema = z.looseObject({
    url: urlTemplate,
    method: z.enum(METHODS).default('GET'),
    running_pointer: z
      .string()
      .regex(/^(\/.*)?$/, 'expected a JSON Pointer such as "/zones/{station}/running"'),
    remaining_pointer: z
      .string()
      .regex(/^(\/.*)?$/, 'expected a JSON Pointer such as "/zones/{station}/remaining"')
      .nullish(),
  });

  return z.looseObject({
    run: actionSchema,
    stop: actionSchema,
    /** Absent: stop every bound station one by one. */
    stop_all: actionSchema.nullish(),
    /** Absent: fire-and-forget (no state readback). */
    status: statusSchema.nullish(),
    /** Sent as `Authorization: Bearer ...`; the key name marks it as a secret (redacted). */
    bearer_token: z.string().min(1).nullish(),
    /** Static headers sent with every request (not redacted: put credentials in bearer_token). */
    headers: z.record(z.string(), z.string()).nullish(),
    timeout_s: z.number().int().min(1).max(60).default(10),
    poll_interval_s: z.number().int().min(2).max(3600).default(10),
    concurrent_zones: z.boolean().default(false),
    /** True: the board closes the valve after {seconds}. False: the service sends `stop` at the end. */
    self_timed: z.boolean().default(true),
    zone_map: z.record(z.string(), z.union([z.string(), z.number()])).nullish(),
  });
});

export type HttpGenericConfig = z.output<typeof configSchema>;
type ActionConfig = HttpGenericConfig['run'];
type StatusConfig = NonNullable<HttpGenericConfig['status']>;

interface TemplateValues extends DurationValues {
  station: string;
}

export class HttpGenericController implements ControllerAdapter {
  readonly kind = 'http_generic';
  readonly id: string;
  readonly capabilities: ControllerCapabilities;
  readonly confirmWithinS: number | null;
  readonly pollIntervalMs: number | null;
  private readonly config: HttpGenericConfig;
  private readonly call: ControllerCallOptions;

  constructor(private readonly ctx: AdapterContext<HttpGenericConfig>) {
    this.id = ctx.id;
    this.config = ctx.config;
    this.call = { controllerId: ctx.id, fetch: ctx.fetch, timeoutMs: ctx.config.timeout_s * 1000 };
    const readback = Boolean(ctx.config.status);
    this.capabilities = {
      per_zone_stop: true,
      state_readback: readback,
      zone_scan: false,
      water_level: false,
      flow: false,
      concurrent_zones: ctx.config.concurrent_zones,
      self_timed: ctx.config.self_timed,
      device_limit: ctx.config.self_timed || carriesDuration([ctx.config.run.url, ctx.config.run.body]),
    };
    // A change shows at the next poll at the latest, plus that poll's own call.
    this.confirmWithinS = readback ? ctx.config.poll_interval_s + ctx.config.timeout_s : null;
    this.pollIntervalMs = readback ? ctx.config.poll_interval_s * 1000 : null;
  }

  async start(): Promise<void> {}
  async stop(): Promise<void> {}

  async runZone(station: string, seconds: number): Promise<void> {
    await this.send(this.config.run, { station, ...durationValues(seconds) });
  }

  async stopZone(station: string): Promise<'zone'> {
    await this.send(this.config.stop, { station, ...durationValues(0) });
    return 'zone';
  }

  async stopAll(): Promise<void> {
    if (this.config.stop_all) {
      await this.send(this.config.stop_all, { station: '', ...durationValues(0) });
      return;
    }
    await this.stopEachStation();
  }

  async readStatus(): Promise<ControllerStatus> {
    const status = this.config.status;
    if (!status) throw unsupported(this.id, 'read its state (no `status` request is configured)');
    const stations = status.url.includes('{station}')
      ? await this.readEachStation(status)
      : this.stationsFrom(status, await this.fetchStatus(status, ''), this.boundStations());
    return {
      observed_epoch: epochSeconds(this.ctx.clock),
      stations,
      water_level_pct: null,
      flow_rate_gpm: null,
      flow_total_gal_today: null,
    };
  }

  async scanZones(): Promise<ScannedZone[]> {
    throw unsupported(this.id, 'list its zones');
  }

  /** Every bound station gets a stop; all are tried, the last failure is thrown. */
  private async stopEachStation(): Promise<void> {
    let lastError: ControllerError | null = null;
    for (const station of this.boundStations()) {
      try {
        await this.stopZone(station);
      } catch (err) {
        lastError = asControllerError(this.id, err);
        this.ctx.logger.warn({ controller: this.id, station, err: lastError.message }, 'stop failed');
      }
    }
    if (lastError) throw lastError;
  }

  private async readEachStation(status: StatusConfig): Promise<Record<string, StationState>> {
    const stations: Record<string, StationState> = {};
    for (const station of this.boundStations()) {
      Object.assign(stations, this.stationsFrom(status, await this.fetchStatus(status, station), [station]));
    }
    return stations;
  }

  private async fetchStatus(status: StatusConfig, station: string): Promise<unknown> {
    const url = renderTemplate(status.url, { station, ...durationValues(0) }, encodeURIComponent);
    const headers = this.headers();
    headers.set('accept', 'application/json');
    const response = await controllerCall(this.call, url, { method: status.method, headers });
    return readJson(this.id, response, this.call.timeoutMs);
  }

  /** Each station whose running pointer resolves; a station the document does not name stays unknown. */
  private stationsFrom(
    status: StatusConfig,
    document: unknown,
    stations: readonly string[],
  ): Record<string, StationState> {
    const found: Record<string, StationState> = {};
    for (const station of stations) {
      const values = { station, ...durationValues(0) };
      const running = resolvePointer(
        document,
        renderTemplate(status.running_pointer, values, escapePointerToken),
      );
      if (running === undefined) continue;
      const remaining = status.remaining_pointer
        ? resolvePointer(document, renderTemplate(status.remaining_pointer, values, escapePointerToken))
        : undefined;
      found[station] = { running: isRunningValue(running), remaining_s: asSeconds(remaining) };
    }
    return found;
  }

  private async send(action: ActionConfig, values: TemplateValues): Promise<void> {
    const url = renderTemplate(action.url, values, encodeURIComponent);
    const headers = this.headers();
    const init: RequestInit = { method: action.method, headers };
    if (action.body != null) {
      init.body = renderTemplate(action.body, values, bodyEscaper(action.content_type));
      headers.set('content-type', action.content_type);
    }
    const response = await controllerCall(this.call, url, init);
    await response.body?.cancel().catch(() => undefined);
  }

  /** Static headers first; the bearer token wins over a static Authorization header. */
  private headers(): Headers {
    const headers = new Headers(this.config.headers ?? {});
    if (this.config.bearer_token) headers.set('authorization', `Bearer ${this.config.bearer_token}`);
    return headers;
  }

  private boundStations(): string[] {
    return [...new Set(this.ctx.stations.map(({ station }) => station))];
  }
}

/** Fills `{station}`, `{seconds}`, `{minutes}` in one pass, escaping each value with `escape`. */
export function renderTemplate(
  template: string,
  values: TemplateValues,
  escape: (value: string) => string,
): string {
  return template.replace(PLACEHOLDER, (_match, name: keyof TemplateValues) => escape(String(values[name])));
}

function isJsonContentType(contentType: string): boolean {
  return /json/i.test(contentType);
}

function bodyEscaper(contentType: string): (value: string) => string {
  if (isJsonContentType(contentType)) return escapeJsonStringContents;
  if (/x-www-form-urlencoded/i.test(contentType)) return encodeURIComponent;
  return (value) => value;
}

/** The value as it appears between the quotes of a JSON string. */
function escapeJsonStringContents(value: string): string {
  return JSON.stringify(value).slice(1, -1);
}

/** RFC 6901: `~` and `/` inside one reference token. */
function escapePointerToken(value: string): string {
  return value.replace(/~/g, '~0').replace(/\//g, '~1');
}

function isHttpUrlTemplate(template: string): boolean {
  try {
    const url = new URL(renderTemplate(template, SAMPLE_VALUES, encodeURIComponent));
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
}

function rendersJson(body: string): boolean {
  try {
    JSON.parse(renderTemplate(body, SAMPLE_VALUES, escapeJsonStringContents));
    return true;
  } catch {
    return false;
  }
}

/** The value at an RFC 6901 pointer; undefined when the document has nothing there. */
export function resolvePointer(document: unknown, pointer: string): unknown {
  if (pointer === '') return document;
  let node: unknown = document;
  for (const raw of pointer.slice(1).split('/')) {
    const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    node = childOf(node, token);
    if (node === undefined) return undefined;
  }
  return node;
}

function childOf(node: unknown, token: string): unknown {
  if (Array.isArray(node)) {
    return /^(0|[1-9]\d*)$/.test(token) ? (node as unknown[])[Number(token)] : undefined;
  }
  if (typeof node === 'object' && node !== null && Object.hasOwn(node, token)) {
    return (node as Record<string, unknown>)[token];
  }
  return undefined;
}

/** true, a non-zero number, or "on" / "open" / "running" / "true" / "1" (any case). */
export function isRunningValue(value: unknown): boolean {
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) && value !== 0;
  if (typeof value === 'string') return RUNNING_WORDS.has(value.trim().toLowerCase());
  return false;
}

function asSeconds(value: unknown): number | null {
  const seconds = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds >= 0 ? Math.round(seconds) : null;
}

export const httpGenericKind: ControllerKindDefinition<HttpGenericConfig> = {
  kind: 'http_generic',
  label: 'Generic HTTP',
  configSchema,
  create: (ctx) => new HttpGenericController(ctx),
};
