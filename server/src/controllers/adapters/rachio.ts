import { z } from 'zod';
import type { Logger } from '../../core/logger';
import { asControllerError, ControllerError, unreachable } from '../errors';
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
 * `rachio`: a Rachio controller through the public cloud API v1
 * (shared/fixtures/cloud-controllers.md). Rachio times its own runs
 * (PUT /zone/start with a duration) but has no single-zone stop: only
 * PUT /device/stop_water, so every stop answers scope `device`. State is read
 * by polling the device's current schedule, and the API allows a fixed number
 * of calls per day (3,500; older docs 1,700), so the poll interval is at
 * least 60 s: readStatus costs two calls (device + current_schedule), i.e.
 * 1,440 calls a day at the default 120 s. The API key travels only in the
 * Authorization header and is scrubbed from every error message.
 */

export const RACHIO_DEFAULT_BASE_URL = 'https://api.rach.io/1/public';
export const RACHIO_DEFAULT_POLL_INTERVAL_S = 120;
const RATE_LIMIT_REMAINING = 'x-ratelimit-remaining';
const RATE_LIMIT_RESET = 'x-ratelimit-reset';

/** A Rachio zone id (a uuid); anything without whitespace is accepted. */
const STATION = /^\S+$/;

/** fetch refuses a URL with credentials and quotes it whole in the error, so none are allowed. */
function hasNoCredentials(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.username === '' && parsed.password === '';
  } catch {
    return false;
  }
}

const configSchema = z.looseObject({
  /** Secret (found by key name): the account's API key from the Rachio app. */
  api_key: z.string().min(1),
  device_id: z.string().regex(STATION).nullish().describe('null = the first device of the account'),
  poll_interval_s: z.number().int().min(60).max(3600).nullish().describe('null = 120'),
  base_url: z
    .url({ protocol: /^https?$/ })
    .refine(hasNoCredentials, 'a base_url may not carry credentials')
    .nullish()
    .describe(`null = ${RACHIO_DEFAULT_BASE_URL}`),
  timeout_s: z.number().min(1).max(60).default(15),
  /** Zone slug -> Rachio zone id. */
  zone_map: z.record(z.string(), z.string().regex(STATION)).optional(),
});
export type RachioConfig = z.output<typeof configSchema>;

/** The poll interval the adapter uses (null or absent = 120 s). */
export function rachioPollIntervalS(config: Pick<RachioConfig, 'poll_interval_s'>): number {
  return config.poll_interval_s ?? RACHIO_DEFAULT_POLL_INTERVAL_S;
}

// The vendor objects, reduced to the fields this adapter reads (fixture "Data objects").
const personInfoSchema = z.looseObject({ id: z.string().min(1) });
const zoneSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string().optional(),
  zoneNumber: z.number().optional(),
  enabled: z.boolean().optional(),
});
const deviceSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string().optional(),
  status: z.string().optional(),
  zones: z.array(zoneSchema).optional(),
});
const personSchema = z.looseObject({ id: z.string(), devices: z.array(deviceSchema).default([]) });
/**
 * GET /device/{id}/current_schedule. Not described in the fixture: the shape is
 * taken from public clients (boatmeme/rachio's test fixture, Home Assistant's
 * `current_schedule.get("zoneId")`): a run carries `zoneId`, `zoneStartDate`
 * (epoch ms) and `zoneDuration` (s); an idle device answers without `zoneId`
 * (observed as `{}`).
 */
const currentScheduleSchema = z.looseObject({
  zoneId: z.string().optional(),
  zoneStartDate: z.number().optional(),
  zoneDuration: z.number().optional(),
});
type RachioDevice = z.output<typeof deviceSchema>;
type RachioPerson = z.output<typeof personSchema>;
type CurrentSchedule = z.output<typeof currentScheduleSchema>;

export class RachioController implements ControllerAdapter {
  readonly kind = 'rachio';
  readonly id: string;
  readonly capabilities: ControllerCapabilities = {
    per_zone_stop: false,
    state_readback: true,
    zone_scan: true,
    water_level: false,
    flow: false,
    concurrent_zones: false,
    self_timed: true,
    device_limit: true,
  };
  readonly confirmWithinS: number;
  readonly pollIntervalMs: number;
  private readonly baseUrl: string;
  private readonly timeoutMs: number;
  private readonly log: Logger;
  /** The device id once resolved from the account (device_id null); reset when the lookup fails. */
  private deviceIdLookup: Promise<string> | null = null;
  /** The vendor's remaining-calls header of the last answer; null until one carried it. */
  private lastRateLimitRemaining: string | null = null;

  constructor(private readonly ctx: AdapterContext<RachioConfig>) {
    this.id = ctx.id;
    const pollS = rachioPollIntervalS(ctx.config);
    this.confirmWithinS = pollS;
    this.pollIntervalMs = pollS * 1000;
    this.baseUrl = (ctx.config.base_url ?? RACHIO_DEFAULT_BASE_URL).replace(/\/+$/, '');
    this.timeoutMs = ctx.config.timeout_s * 1000;
    this.log = ctx.logger.child({ module: 'controllers.rachio', controller: ctx.id });
  }

  async start(): Promise<void> {}
  async stop(): Promise<void> {}

  async runZone(station: string, seconds: number): Promise<void> {
    await this.put('/zone/start', { id: station, duration: Math.round(seconds) });
  }

  /** Rachio cannot stop one zone: this stops all watering on the device. */
  async stopZone(_station: string): Promise<'device'> {
    await this.stopWater();
    return 'device';
  }

  async stopAll(): Promise<void> {
    await this.stopWater();
  }

  async readStatus(): Promise<ControllerStatus> {
    const deviceId = await this.resolveDeviceId();
    const device = await this.getParsed(`/device/${encodeURIComponent(deviceId)}`, deviceSchema);
    if (device.status === 'OFFLINE') {
      throw unreachable(this.id, `device offline (Rachio reports ${device.name ?? deviceId} as OFFLINE)`);
    }
    const schedule = await this.getParsed(
      `/device/${encodeURIComponent(deviceId)}/current_schedule`,
      currentScheduleSchema,
    );
    return this.statusFrom(schedule);
  }

  /** The enabled zones of this controller's device, in zone-number order. */
  async scanZones(): Promise<ScannedZone[]> {
    const device = this.pickDevice(await this.loadPerson());
    this.deviceIdLookup ??= Promise.resolve(device.id);
    return (device.zones ?? [])
      .filter((zone) => zone.enabled !== false)
      .sort((a, b) => (a.zoneNumber ?? Infinity) - (b.zoneNumber ?? Infinity))
      .map((zone) => ({ station: zone.id, name: zone.name ?? `Zone ${zone.zoneNumber ?? zone.id}` }));
  }

  /** Wizard probe: the device this controller drives, and how many the account holds. */
  async discoverDevice(): Promise<{ device_id: string; name: string | null; device_count: number }> {
    const person = await this.loadPerson();
    const device = this.pickDevice(person);
    return { device_id: device.id, name: device.name ?? null, device_count: person.devices.length };
  }

  /** The remaining daily calls the last answer reported; null when none said. */
  get rateLimitRemaining(): string | null {
    return this.lastRateLimitRemaining;
  }

  private async stopWater(): Promise<void> {
    await this.put('/device/stop_water', { id: await this.resolveDeviceId() });
  }

  private resolveDeviceId(): Promise<string> {
    const configured = this.ctx.config.device_id;
    if (configured) return Promise.resolve(configured);
    this.deviceIdLookup ??= this.loadPerson().then(
      (person) => this.pickDevice(person).id,
      (err: unknown) => {
        this.deviceIdLookup = null;
        throw err;
      },
    );
    return this.deviceIdLookup;
  }

  /** GET /person/info names the key's person; GET /person/{id} lists its devices and zones. */
  private async loadPerson(): Promise<RachioPerson> {
    const info = await this.getParsed('/person/info', personInfoSchema);
    return this.getParsed(`/person/${encodeURIComponent(info.id)}`, personSchema);
  }

  private pickDevice(person: RachioPerson): RachioDevice {
    const wanted = this.ctx.config.device_id;
    const device = wanted ? person.devices.find((d) => d.id === wanted) : person.devices[0];
    if (device) return device;
    throw unreachable(
      this.id,
      wanted ? `device ${wanted} is not on this Rachio account` : 'the Rachio account has no device',
    );
  }

  private statusFrom(schedule: CurrentSchedule): ControllerStatus {
    const nowMs = this.ctx.clock.nowMs();
    const stations: Record<string, StationState> = {};
    for (const { station } of this.ctx.stations) stations[station] = { running: false, remaining_s: null };
    if (schedule.zoneId) {
      stations[schedule.zoneId] = { running: true, remaining_s: remainingSeconds(schedule, nowMs) };
    }
    return {
      observed_epoch: Math.floor(nowMs / 1000),
      stations,
      water_level_pct: null,
      flow_rate_gpm: null,
      flow_total_gal_today: null,
    };
  }

  private async put(path: string, body: Record<string, unknown>): Promise<void> {
    const response = await this.call(path, {
      method: 'PUT',
      headers: { ...this.authHeaders(), 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    // Success is 204 No Content; nothing to read.
    await response.body?.cancel().catch(() => undefined);
  }

  private async getParsed<T>(path: string, schema: z.ZodType<T>): Promise<T> {
    const response = await this.call(path, { method: 'GET', headers: this.authHeaders() });
    const parsed = schema.safeParse(await this.guard(readJson(this.id, response, this.timeoutMs)));
    if (parsed.success) return parsed.data;
    throw unreachable(this.id, `unexpected answer from ${safeUrl(response.url || this.baseUrl + path)}`);
  }

  private async call(path: string, init: RequestInit): Promise<Response> {
    const url = `${this.baseUrl}${path}`;
    const options = {
      controllerId: this.id,
      fetch: this.ctx.fetch,
      timeoutMs: this.timeoutMs,
      rateLimitHeader: RATE_LIMIT_REMAINING,
    };
    const response = await this.guard(controllerCall(options, url, init));
    this.lastRateLimitRemaining = response.headers.get(RATE_LIMIT_REMAINING) ?? this.lastRateLimitRemaining;
    this.warnWhenBudgetSpent(response, `${init.method ?? 'GET'} ${safeUrl(url)}`);
    return response;
  }

  /** A 2xx that spent the last call of the day still succeeded; the next call will be refused (429). */
  private warnWhenBudgetSpent(response: Response, where: string): void {
    if (response.headers.get(RATE_LIMIT_REMAINING) !== '0') return;
    this.log.warn(
      { call: where, reset: response.headers.get(RATE_LIMIT_RESET) },
      'Rachio daily API budget is spent: further calls fail with 429 until the reset; consider a longer poll_interval_s',
    );
  }

  private authHeaders(): Record<string, string> {
    return { Authorization: `Bearer ${this.ctx.config.api_key}`, Accept: 'application/json' };
  }

  /** Every failure leaves as a ControllerError whose message cannot carry the API key. */
  private async guard<T>(promise: Promise<T>): Promise<T> {
    try {
      return await promise;
    } catch (err) {
      throw withoutSecret(asControllerError(this.id, err), this.ctx.config.api_key);
    }
  }
}

function remainingSeconds(schedule: CurrentSchedule, nowMs: number): number | null {
  if (schedule.zoneStartDate === undefined || schedule.zoneDuration === undefined) return null;
  const endsMs = schedule.zoneStartDate + schedule.zoneDuration * 1000;
  return Math.max(0, Math.round((endsMs - nowMs) / 1000));
}

function withoutSecret(err: ControllerError, secret: string): ControllerError {
  if (secret === '' || !err.message.includes(secret)) return err;
  return new ControllerError(err.code, err.message.split(secret).join('***redacted***'), err.extra);
}

export const rachioKind: ControllerKindDefinition<RachioConfig> = {
  kind: 'rachio',
  label: 'Rachio (cloud)',
  configSchema,
  stationExpectation: 'a Rachio zone id such as "108e23aa-4999-4da2-994a-62aa6e207221"',
  parseStation: (station) => STATION.test(station),
  create: (ctx) => new RachioController(ctx),
};
