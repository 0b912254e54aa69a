import { z } from 'zod';
import { epochSeconds } from '../../core/clock';
import { unreachable, unsupported } from '../errors';
import { controllerCall, readJson, safeUrl } from '../http-call';
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
 * `esphome_native`: an ESPHome device through its `web_server` REST API
 * (shared/fixtures/esphome.md), not the protobuf native API. Each zone is a
 * switch (valve relay) or valve entity: POST turn_on / open starts it,
 * turn_off / close stops it, GET reads it. A switch or valve has no run
 * duration, so the service owns the shutoff (self_timed false), and the API
 * has no entity list, so no zone scan. A valve of ESPHome's sprinkler
 * component can time itself: its `run_duration_number` is a number entity,
 * and turning the valve switch on runs it for that long. With
 * `run_duration_numbers` (station -> number entity, in `run_duration_unit`,
 * `s` or `min` as the device's number is configured) each run first sets the
 * number (POST /number/<e>/set?value=), then opens the valve: a device-side
 * limit (`device_limit` when every bound station has one); the service still
 * sends its stop at the end. Entities are addressed in either URL form ESPHome has used: the
 * legacy object id (`switch.front_lawn` -> /switch/front_lawn) or the current
 * entity name (`switch/Front Lawn` -> /switch/Front%20Lawn). Calls go one at
 * a time: the device's small web server handles few connections at once.
 */

export const ESPHOME_STATION_EXPECTATION = 'an entity such as "switch.front_lawn" or "valve/Front Lawn"';

type EsphomeDomain = 'switch' | 'valve';

/** `switch.front_lawn`: domain and object id (lower case, digits, `_`, `-`). */
const LEGACY_ENTITY = /^(switch|valve)\.([a-z0-9_-]+)$/;
/** `switch/Front Lawn` (or `switch/Device/Entity` on a sub-device): domain and entity name. */
const NAMED_ENTITY = /^(switch|valve)\/(.+)$/;
const LEGACY_NUMBER = /^(number)\.([a-z0-9_-]+)$/;
const NAMED_NUMBER = /^(number)\/(.+)$/;

export interface EsphomeEntity {
  domain: EsphomeDomain;
  /** The URL path after the domain, already encoded. */
  urlPath: string;
}

/** The entity a station names, or null when it is neither form. */
export function parseEsphomeStation(station: string): EsphomeEntity | null {
  return parseEntity(station, NAMED_ENTITY, LEGACY_ENTITY) as EsphomeEntity | null;
}

/** A run-duration number entity (`number/Front Lawn Run Duration` or `number.front_lawn_run_duration`). */
export function parseEsphomeNumber(entity: string): { urlPath: string } | null {
  return parseEntity(entity, NAMED_NUMBER, LEGACY_NUMBER);
}

function parseEntity(
  text: string,
  namedForm: RegExp,
  legacyForm: RegExp,
): { domain: string; urlPath: string } | null {
  const named = namedForm.exec(text);
  if (named) {
    const segments = (named[2] ?? '').split('/');
    const valid = segments.every((s) => s !== '' && s.trim() === s);
    return valid ? { domain: named[1] ?? '', urlPath: segments.map(encodeURIComponent).join('/') } : null;
  }
  const legacy = legacyForm.exec(text);
  return legacy ? { domain: legacy[1] ?? '', urlPath: legacy[2] ?? '' } : null;
}

/** fetch refuses a URL with credentials and quotes it whole in the error: keep them in username/password. */
function hasNoCredentials(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.username === '' && parsed.password === '';
  } catch {
    return false;
  }
}

const configSchema = z.looseObject({
  base_url: z
    .url({ protocol: /^https?$/ })
    .refine(hasNoCredentials, 'set username and password instead of credentials in the URL')
    .describe('e.g. http://sprinkler.local'),
  /** web_server `auth:` credentials; sent as HTTP basic auth when username is set. */
  username: z.string().min(1).optional(),
  /** Secret (found by key name). */
  password: z.string().optional(),
  poll_interval_s: z.number().int().min(2).max(3600).default(5),
  timeout_s: z.number().min(1).max(60).default(10),
  concurrent_zones: z.boolean().default(false),
  /** Zone slug -> entity station. */
  zone_map: z.record(z.string(), z.string().min(1)).optional(),
  /** Station -> the sprinkler component's run-duration number entity of that valve (a device-side limit). */
  run_duration_numbers: z
    .record(
      z.string(),
      z
        .string()
        .refine((e) => parseEsphomeNumber(e) !== null, 'expected "number/<name>" or "number.<object_id>"'),
    )
    .optional(),
  /** The unit the run-duration numbers are configured in on the device. */
  run_duration_unit: z.enum(['s', 'min']).default('s'),
});
export type EsphomeConfig = z.output<typeof configSchema>;

/** The GET payload fields this adapter reads (switch: state/value; valve: state/current_operation). */
const entityStateSchema = z.looseObject({
  state: z.string().optional(),
  value: z.unknown().optional(),
  current_operation: z.string().optional(),
});
type EntityState = z.output<typeof entityStateSchema>;

const COMMANDS: Record<EsphomeDomain, { start: string; stop: string }> = {
  switch: { start: 'turn_on', stop: 'turn_off' },
  valve: { start: 'open', stop: 'close' },
};

export class EsphomeController implements ControllerAdapter {
  readonly kind = 'esphome_native';
  readonly id: string;
  readonly capabilities: ControllerCapabilities;
  readonly confirmWithinS: number;
  readonly pollIntervalMs: number;
  private readonly baseUrl: string;
  private readonly timeoutMs: number;

  constructor(private readonly ctx: AdapterContext<EsphomeConfig>) {
    this.id = ctx.id;
    const stations = [...new Set(ctx.stations.map((binding) => binding.station))];
    this.capabilities = {
      per_zone_stop: true,
      state_readback: true,
      zone_scan: false,
      water_level: false,
      flow: false,
      concurrent_zones: ctx.config.concurrent_zones,
      self_timed: false,
      device_limit: stations.length > 0 && stations.every((station) => this.durationNumber(station) !== null),
    };
    this.confirmWithinS = ctx.config.poll_interval_s;
    this.pollIntervalMs = ctx.config.poll_interval_s * 1000;
    this.baseUrl = ctx.config.base_url.replace(/\/+$/, '');
    this.timeoutMs = ctx.config.timeout_s * 1000;
  }

  async start(): Promise<void> {}
  async stop(): Promise<void> {}

  /** Arms the valve's run duration when it has one, then opens it (the service also closes it at the end). */
  async runZone(station: string, seconds: number): Promise<void> {
    const entity = this.entity(station);
    const number = this.durationNumber(station);
    if (number) {
      const value =
        this.ctx.config.run_duration_unit === 'min' ? Math.ceil(seconds / 60) : Math.ceil(seconds);
      await this.call(station, `/number/${number.urlPath}/set?value=${value}`, 'POST');
    }
    await this.command(station, entity, COMMANDS[entity.domain].start);
  }

  private durationNumber(station: string): { urlPath: string } | null {
    const entity = this.ctx.config.run_duration_numbers?.[station];
    return entity ? parseEsphomeNumber(entity) : null;
  }

  async stopZone(station: string): Promise<'zone'> {
    const entity = this.entity(station);
    await this.command(station, entity, COMMANDS[entity.domain].stop);
    return 'zone';
  }

  /** Closes every bound station, past failures; the last failure is thrown once all were tried. */
  async stopAll(): Promise<void> {
    let lastError: unknown = null;
    for (const station of this.boundStations()) {
      try {
        await this.stopZone(station);
      } catch (err) {
        lastError = err;
      }
    }
    if (lastError !== null) throw lastError;
  }

  async readStatus(): Promise<ControllerStatus> {
    const stations: Record<string, StationState> = {};
    for (const station of this.boundStations()) {
      const entity = this.entity(station);
      const state = await this.readEntity(station, entity);
      stations[station] = { running: isRunning(entity.domain, state), remaining_s: null };
    }
    return {
      observed_epoch: epochSeconds(this.ctx.clock),
      stations,
      water_level_pct: null,
      flow_rate_gpm: null,
      flow_total_gal_today: null,
    };
  }

  async scanZones(): Promise<ScannedZone[]> {
    throw unsupported(this.id, 'list its zones (ESPHome web_server has no entity list)');
  }

  private boundStations(): string[] {
    return [...new Set(this.ctx.stations.map((binding) => binding.station))];
  }

  private entity(station: string): EsphomeEntity {
    const entity = parseEsphomeStation(station);
    if (entity) return entity;
    throw unreachable(this.id, `station "${station}" is not ${ESPHOME_STATION_EXPECTATION}`);
  }

  private async command(station: string, entity: EsphomeEntity, method: string): Promise<void> {
    await this.call(station, `/${entity.domain}/${entity.urlPath}/${method}`, 'POST');
  }

  private async readEntity(station: string, entity: EsphomeEntity): Promise<EntityState> {
    const response = await this.request(station, `/${entity.domain}/${entity.urlPath}`, 'GET');
    const parsed = entityStateSchema.safeParse(await readJson(this.id, response, this.timeoutMs));
    if (parsed.success) return parsed.data;
    throw unreachable(this.id, `unexpected state payload for "${station}"`);
  }

  /** A POST whose answer carries nothing but its status. */
  private async call(station: string, path: string, method: 'POST'): Promise<void> {
    const response = await this.request(station, path, method);
    await response.body?.cancel().catch(() => undefined);
  }

  /** controllerCall's mapping, with a 404 reported as the unknown entity it means. */
  private async request(station: string, path: string, method: 'GET' | 'POST'): Promise<Response> {
    const url = `${this.baseUrl}${path}`;
    let notFound = false;
    const fetchNoting404: typeof fetch = async (input, init) => {
      const response = await this.ctx.fetch(input, init);
      notFound = response.status === 404;
      return response;
    };
    const options = { controllerId: this.id, fetch: fetchNoting404, timeoutMs: this.timeoutMs };
    try {
      return await controllerCall(options, url, { method, headers: this.headers() });
    } catch (err) {
      if (!notFound) throw err;
      throw unreachable(
        this.id,
        `the device has no entity "${station}" (HTTP 404 on ${method} ${safeUrl(url)})`,
      );
    }
  }

  private headers(): Record<string, string> {
    const { username, password } = this.ctx.config;
    if (!username) return {};
    const basic = Buffer.from(`${username}:${password ?? ''}`).toString('base64');
    return { Authorization: `Basic ${basic}` };
  }
}

/** Switch: value true / state "ON". Valve: state "OPEN" or still opening. */
function isRunning(domain: EsphomeDomain, state: EntityState): boolean {
  if (domain === 'switch') return state.value === true || state.state === 'ON';
  return state.state === 'OPEN' || state.current_operation === 'OPENING';
}

export const esphomeKind: ControllerKindDefinition<EsphomeConfig> = {
  kind: 'esphome_native',
  label: 'ESPHome (web_server REST)',
  configSchema,
  stationExpectation: ESPHOME_STATION_EXPECTATION,
  parseStation: (station) => parseEsphomeStation(station) !== null,
  create: (ctx) => new EsphomeController(ctx),
};
