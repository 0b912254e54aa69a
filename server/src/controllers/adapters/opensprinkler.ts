import type { z } from 'zod';
import { lazySchema } from '../../core/zod-lazy';
import { epochSeconds } from '../../core/clock';
import type { Logger } from '../../core/logger';
import { authFailed, unreachable, unsupported, type ControllerError } from '../errors';
import { controllerCall, readJson, type ControllerCallOptions } from '../http-call';
import type {
  AdapterContext,
  ControllerAdapter,
  ControllerCapabilities,
  ControllerKindDefinition,
  ControllerStatus,
  DeviceFacts,
  LoggedRun,
  ScannedZone,
  StationState,
} from '../types';

/**
 * `opensprinkler`: an OpenSprinkler (firmware 2.1.9 / 2.2.x) driven over its
 * own LAN HTTP API, so watering works without any cloud or Home Assistant.
 *
 * Protocol (shared fixture opensprinkler-api.md, checked against the
 * firmware's opensprinkler_server.cpp): GET `/<cmd>?pw=<md5>&...`. The device
 * reports failures in the body as `{"result":N}` (2.2.1 adds `"item"`) with
 * HTTP 200, so every answer is checked: 2 -> controller_auth_failed (424,
 * never 401); any other refusal -> controller_unreachable naming the
 * firmware's meaning. A wrong password on `/ja` and `/jo` is different: the
 * firmware answers HTTP 200 with a body holding only `{"fwv":N}` (so its app
 * can show the version), which is read as the same auth failure. Closing an
 * inactive station answers 17, and stopping a stopped zone is idempotent, so
 * stopZone treats it as success.
 *
 * Decisions:
 * - Stations are 1-based strings ("1" = `sid=0`). A string that is not a
 *   station number (1..999) is refused before any call with
 *   controller_unsupported (a config error, not a device fault). A number past
 *   the device's station count is left to the device: a run answers 17 (Out of
 *   Range) -> controller_unreachable; a stop is a no-op success.
 * - Status comes from one `/ja`. Firmware without `/ja` answers its unknown-path
 *   answer (HTTP 404 on 2.2.x boards, `{"result":32}` on the old ATmega server);
 *   the adapter then remembers that and reads `/jc /jo /jn /js`.
 * - Master stations (`mas`, `mas2`, 1-based, 0 = none) switch with the zones
 *   bound to them; the firmware refuses to run one alone (result 48). They are
 *   left out of the zone scan, named in the device facts (the config validator
 *   warns about a zone bound to one), and a 48 on one says so.
 * - Device facts: `fwv`/`fwm` -> firmware "2.2.1(3)", `en` -> operation enabled,
 *   `lupt` (boot time, device local time) -> booted_epoch in UTC through the
 *   offset between `devt` and the clock: a restart mid-run shows as a boot
 *   after the run began.
 * - Running = the output bit (`status.sn`, else `settings.sbits`), never the
 *   program id: `pid != 0` with the bit off is a queued station (sequential
 *   group), reported as not running. remaining_s = `ps[i][1]` while running.
 * - Flow: the device multiplies clicks by its pulse rate (`fpr1*256+fpr0`,
 *   hundredths of a volume unit per click) but never stores which unit; the
 *   app's L/gal choice is a display label. So gallons are only reported when
 *   the config names that unit (`flow_pulse_unit`), and only while the device
 *   has a flow sensor (`sn1t` or `sn2t` = 2). The rate is the device's window
 *   count: volume/min = flcrt * pulse_volume * 60 / flwrt; litres / 3.785411784
 *   = US gallons. The capability `flow` is true only when `flow_pulse_unit` is
 *   set. No daily total: `flcto` is a click counter without a day boundary.
 * - `host` may carry the port (`host:port`, `[v6]:port`) and an http(s)
 *   scheme; a port in `host` wins over `port`.
 * - observed_epoch comes from the injected clock; device time (`devt`) is
 *   local time, used only for its offset from UTC (boot time, log rows).
 * - Run log (`/jl?start=&end=`, device local epochs; the firmware answers
 *   every row of the whole local days they fall in): station rows
 *   `[pid, sid, seconds, end]` (special rows carry a string at index 1 and
 *   are skipped) are what the station really ran, written when it closed.
 *   The run ledger caps observed water at them (irrigation/dispatch/
 *   run-log-reconcile.ts). Logging off (`lg` 0) = no log (null).
 * - The password hash travels only in query strings; errors and logs name URLs
 *   through safeUrl (no query) and never echo the device body.
 */

const STATION = /^[1-9]\d{0,2}$/;
const LITERS_PER_GALLON = 3.785411784;
const SENSOR_TYPE_FLOW = 2;
const WATER_LEVEL_MAX = 250;

const RESULT_OK = 1;
const RESULT_UNAUTHORIZED = 2;
const RESULT_OUT_OF_RANGE = 17;
const RESULT_PAGE_NOT_FOUND = 32;
const RESULT_NOT_PERMITTED = 48;
const HTTP_NOT_FOUND = 404;
/** Device local time is UTC plus whole quarter hours (`tz`). */
const TZ_STEP_S = 900;

/** The firmware's `{"result":N}` codes (opensprinkler-api.md). */
const RESULT_MEANINGS: Record<number, string> = {
  1: 'Success',
  2: 'Unauthorized: missing or incorrect device password',
  3: 'Mismatch: new and confirmation passwords differ',
  16: 'Data Missing: a required parameter is missing',
  17: 'Out of Range: a value exceeds the acceptable range',
  18: 'Data Format Error: data does not match the required format',
  19: 'RF code Error',
  32: 'Page Not Found',
  48: 'Not Permitted: the device cannot operate on the requested station (already queued or running, or queue full)',
  64: 'Upload failed',
};

interface HostParts {
  protocol: string;
  /** Host name as URL syntax wants it (IPv6 in brackets). */
  hostname: string;
  /** The port written in `host`, null when none. */
  port: number | null;
}

/** `host`, `host:port`, `[v6]:port`, optionally with http(s)://; null when it is anything else. */
export function parseHost(raw: string): HostParts | null {
  const text = raw.trim();
  if (text === '') return null;
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.pathname !== '/' || url.search || url.hash || url.username || url.password) return null;
  // URL drops a port equal to the scheme default; read the written one instead.
  const written = /:(\d{1,5})\/?$/.exec(text);
  return { protocol: url.protocol, hostname: url.hostname, port: written ? Number(written[1]) : null };
}

// Built on first use (core/zod-lazy.ts): a boot from the validated-config cache loads no zod.
const configSchema = lazySchema((z) =>
  z.looseObject({
    host: z
      .string()
      .min(1)
      .refine((host) => parseHost(host) !== null, 'expected a host name or address, optionally with :port'),
    port: z.number().int().min(1).max(65535).default(80),
    /** MD5 of the device password; sent lower-cased (the firmware compares lower-case hex). */
    password_md5: z.string().regex(/^[0-9a-fA-F]{32}$/, 'expected an MD5 hex digest'),
    poll_interval_s: z.number().int().min(2).max(3600).default(10),
    timeout_s: z.number().min(1).max(60).default(10),
    concurrent_zones: z.boolean().default(false),
    zone_map: z.record(z.string(), z.string()).optional(),
    /** The unit the device's flow pulse rate was calibrated in; absent = no flow readings. */
    flow_pulse_unit: z.enum(['gal', 'l']).optional(),
  }),
);

export type OpenSprinklerConfig = z.output<typeof configSchema>;

type Json = Record<string, unknown>;

/** The four read documents `/ja` bundles. */
interface DeviceDocument {
  settings: Json;
  options: Json;
  stations: Json;
  status: Json;
}

export class OpenSprinklerController implements ControllerAdapter {
  readonly kind = 'opensprinkler';
  readonly id: string;
  readonly capabilities: ControllerCapabilities;
  readonly confirmWithinS: number;
  readonly pollIntervalMs: number;
  private readonly baseUrl: string;
  private readonly password: string;
  private readonly call: ControllerCallOptions;
  private readonly log: Logger;
  /** Set once the device answered `/ja` with its unknown-path answer (older firmware). */
  private jaMissing = false;
  /** Master stations from the last read, to explain a 48. */
  private masters: string[] = [];
  /** The last read's device local time minus UTC, and whether logging is on. */
  private local: { offsetS: number; logging: boolean } | null = null;

  constructor(private readonly ctx: AdapterContext<OpenSprinklerConfig>) {
    const { config } = ctx;
    this.id = ctx.id;
    this.capabilities = {
      per_zone_stop: true,
      state_readback: true,
      zone_scan: true,
      water_level: true,
      flow: config.flow_pulse_unit !== undefined,
      concurrent_zones: config.concurrent_zones,
      self_timed: true,
      device_limit: true,
    };
    this.confirmWithinS = config.poll_interval_s;
    this.pollIntervalMs = config.poll_interval_s * 1000;
    this.baseUrl = baseUrlFor(config);
    this.password = config.password_md5.toLowerCase();
    this.call = { controllerId: ctx.id, fetch: ctx.fetch, timeoutMs: config.timeout_s * 1000 };
    this.log = ctx.logger.child({ module: 'controller', kind: this.kind, controller: ctx.id });
  }

  async start(): Promise<void> {}
  async stop(): Promise<void> {}

  async runZone(station: string, seconds: number): Promise<void> {
    const sid = this.sidFor(station);
    const t = Math.max(1, Math.round(seconds));
    try {
      await this.command('/cm', { sid, en: 1, t });
    } catch (err) {
      throw this.masters.includes(station.trim()) ? this.masterRefusal(station, err) : err;
    }
    this.log.info({ station, seconds: t }, 'station opened');
  }

  async stopZone(station: string): Promise<'zone'> {
    const sid = this.sidFor(station);
    const code = await this.command('/cm', { sid, en: 0 }, [RESULT_OK, RESULT_OUT_OF_RANGE]);
    this.log.info({ station, was_open: code === RESULT_OK }, 'station closed');
    return 'zone';
  }

  async stopAll(): Promise<void> {
    await this.command('/cv', { rsn: 1 });
    this.log.info('all stations reset');
  }

  async readStatus(): Promise<ControllerStatus> {
    const device = await this.readDevice();
    const stations = stationStates(device);
    if (!stations) throw unreachable(this.id, 'the OpenSprinkler status carries no station output bits');
    const now = epochSeconds(this.ctx.clock);
    return {
      observed_epoch: now,
      stations,
      water_level_pct: waterLevel(device.options),
      flow_rate_gpm: flowRateGpm(device, this.ctx.config.flow_pulse_unit),
      flow_total_gal_today: null,
      device: deviceFacts(device, now),
    };
  }

  async scanZones(): Promise<ScannedZone[]> {
    const device = await this.readDevice();
    const { stations } = device;
    if (!Array.isArray(stations.snames))
      throw unreachable(this.id, 'the OpenSprinkler answer has no station names');
    const masters = masterStations(device.options);
    return stations.snames.flatMap((name: unknown, index) =>
      bitSet(stations.stn_dis, index) || masters.includes(String(index + 1))
        ? []
        : [{ station: String(index + 1), name: stationName(name, index) }],
    );
  }

  async readRunLog(station: string, fromEpoch: number, toEpoch: number): Promise<LoggedRun[] | null> {
    const sid = this.sidFor(station);
    if (!this.local) await this.readDevice();
    const local = this.local;
    if (!local?.logging) return null;
    const body = await this.get('/jl', {
      start: Math.floor(fromEpoch) + local.offsetS,
      end: Math.ceil(toEpoch) + local.offsetS,
    });
    const code = resultCode(body);
    if (code !== null) throw this.refusal('/jl', code);
    if (!Array.isArray(body))
      throw unreachable(this.id, 'OpenSprinkler answered /jl with something other than a list');
    return body.flatMap((row) => {
      const logged = stationLogRow(row);
      if (!logged || logged.sid !== sid) return [];
      const end = logged.end - local.offsetS;
      return end >= fromEpoch && end <= toEpoch ? [{ station, seconds: logged.seconds, end_epoch: end }] : [];
    });
  }

  /** `/ja`, or its four parts on firmware that lacks it. */
  private async readDevice(): Promise<DeviceDocument> {
    const device = await this.readDocuments();
    this.masters = masterStations(device.options);
    const devt = finite(device.settings.devt);
    if (devt !== null) {
      const offsetS = Math.round((devt - epochSeconds(this.ctx.clock)) / TZ_STEP_S) * TZ_STEP_S;
      this.local = { offsetS, logging: device.options.lg !== 0 };
    }
    return device;
  }

  private async readDocuments(): Promise<DeviceDocument> {
    if (!this.jaMissing) {
      const body = await this.get('/ja', {}, [HTTP_NOT_FOUND]);
      if (body !== NOT_FOUND && resultCode(body) !== RESULT_PAGE_NOT_FOUND) {
        const ja = this.expectObject('/ja', body);
        if (isFwvOnly(ja)) throw this.refusal('/ja', RESULT_UNAUTHORIZED);
        return documentOf(ja);
      }
      this.jaMissing = true;
      this.log.info('the device has no /ja; reading /jc /jo /jn /js instead');
    }
    // One at a time: the device serves one connection at once.
    const settings = await this.query('/jc');
    const options = await this.query('/jo');
    if (isFwvOnly(options)) throw this.refusal('/jo', RESULT_UNAUTHORIZED);
    const stations = await this.query('/jn');
    const status = await this.query('/js');
    return { settings, options, stations, status };
  }

  /** 0-based `sid` for a 1-based station string. */
  private sidFor(station: string): number {
    const trimmed = station.trim();
    if (!STATION.test(trimmed)) {
      throw unsupported(
        this.id,
        `drive station "${station}" (expected a 1-based station number such as "1")`,
      );
    }
    return Number(trimmed) - 1;
  }

  /** A command endpoint: its result code, when it is one of `accepted`. */
  private async command(
    path: string,
    params: Record<string, number>,
    accepted: readonly number[] = [RESULT_OK],
  ): Promise<number> {
    const code = resultCode(await this.get(path, params));
    if (code === null) throw unreachable(this.id, `OpenSprinkler answered ${path} without a result code`);
    if (!accepted.includes(code)) throw this.refusal(path, code);
    return code;
  }

  /** A read endpoint: its JSON object. */
  private async query(path: string): Promise<Json> {
    return this.expectObject(path, await this.get(path));
  }

  private expectObject(path: string, body: unknown): Json {
    const code = resultCode(body);
    if (code !== null) throw this.refusal(path, code);
    if (!isJson(body))
      throw unreachable(this.id, `OpenSprinkler answered ${path} with something other than an object`);
    return body;
  }

  /** The JSON body; NOT_FOUND when the status is one of `passStatuses` (the unknown-path answer). */
  private async get(
    path: string,
    params: Record<string, number> = {},
    passStatuses: readonly number[] = [],
  ): Promise<unknown> {
    const query = new URLSearchParams({ pw: this.password });
    for (const [key, value] of Object.entries(params)) query.set(key, String(value));
    const url = `${this.baseUrl}${path}?${query.toString()}`;
    const response = await controllerCall({ ...this.call, passStatuses }, url);
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      return NOT_FOUND;
    }
    return readJson(this.id, response, this.call.timeoutMs);
  }

  private refusal(path: string, code: number): ControllerError {
    const meaning = RESULT_MEANINGS[code] ?? 'unknown result code';
    if (code === RESULT_UNAUTHORIZED)
      return authFailed(this.id, `OpenSprinkler answered ${path} with result 2 (${meaning})`);
    return unreachable(this.id, `OpenSprinkler refused ${path}: result ${code} (${meaning})`);
  }

  /** A 48 on a master station: say why instead of the generic meaning. */
  private masterRefusal(station: string, err: unknown): unknown {
    if (!(err instanceof Error) || !err.message.includes(`result ${RESULT_NOT_PERMITTED}`)) return err;
    return unsupported(
      this.id,
      `run station ${station.trim()} alone: it is the controller's master station, which switches with its zones (result 48)`,
    );
  }
}

/** The unknown-path answer of a read. */
const NOT_FOUND = Symbol('not found');

function baseUrlFor(config: OpenSprinklerConfig): string {
  const host = parseHost(config.host);
  // The schema already refused anything parseHost rejects.
  if (!host) throw new Error(`invalid OpenSprinkler host "${config.host}"`);
  return `${host.protocol}//${host.hostname}:${host.port ?? config.port}`;
}

function isJson(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function objectAt(value: unknown): Json {
  return isJson(value) ? value : {};
}

function documentOf(ja: Json): DeviceDocument {
  return {
    settings: objectAt(ja.settings),
    options: objectAt(ja.options),
    stations: objectAt(ja.stations),
    status: objectAt(ja.status),
  };
}

/** What 2.2.1 answers `/ja` and `/jo` with a wrong password: `{"fwv":N}` and nothing else. */
function isFwvOnly(body: Json): boolean {
  const keys = Object.keys(body);
  return keys.length === 1 && keys[0] === 'fwv';
}

/** 1-based master stations (`mas`, `mas2`; 0 = none). */
function masterStations(options: Json): string[] {
  return [options.mas, options.mas2]
    .map(finite)
    .filter((n): n is number => n !== null && n > 0)
    .map(String);
}

function deviceFacts(device: DeviceDocument, now: number): DeviceFacts {
  const { settings, options } = device;
  const fwv = finite(options.fwv);
  const fwm = finite(options.fwm);
  const en = finite(settings.en);
  return {
    firmware: fwv === null ? null : firmwareVersion(fwv, fwm),
    enabled: en === null ? null : en === 1,
    master_stations: masterStations(options),
    booted_epoch: bootedEpoch(settings, now),
  };
}

/** 221 -> "2.2.1"; a minor build (`fwm`) is appended as "(3)". */
function firmwareVersion(fwv: number, fwm: number | null): string {
  const digits = String(Math.trunc(fwv)).split('').join('.');
  return fwm !== null && fwm > 0 ? `${digits}(${fwm})` : digits;
}

/** `lupt` is device local time; `devt - now` is the device's offset from UTC (whole quarter hours). */
function bootedEpoch(settings: Json, now: number): number | null {
  const lupt = finite(settings.lupt);
  const devt = finite(settings.devt);
  if (lupt === null || lupt <= 0 || devt === null) return null;
  const offset = Math.round((devt - now) / TZ_STEP_S) * TZ_STEP_S;
  return lupt - offset;
}

/** A station row of `/jl`: `[pid, sid, seconds, end (local)]`; null for special rows (a string at 1) and junk. */
function stationLogRow(row: unknown): { sid: number; seconds: number; end: number } | null {
  if (!Array.isArray(row)) return null;
  const sid = finite(row[1]);
  const seconds = finite(row[2]);
  const end = finite(row[3]);
  if (sid === null || seconds === null || end === null || seconds < 0) return null;
  return { sid, seconds, end };
}

/** The `{"result":N}` code of a command answer; null for any other body. */
function resultCode(body: unknown): number | null {
  return isJson(body) && typeof body.result === 'number' ? body.result : null;
}

function finite(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** Bit `index` of a per-board bitfield array (LSB = first station of the board). */
function bitSet(boards: unknown, index: number): boolean {
  if (!Array.isArray(boards)) return false;
  const board = finite(boards[Math.floor(index / 8)]);
  return board !== null && (board & (1 << (index % 8))) !== 0;
}

/** Per-station output bits: `status.sn`, else the `sbits` bitfields. Null when neither is there. */
function outputBits({ settings, status }: DeviceDocument): boolean[] | null {
  if (Array.isArray(status.sn)) return status.sn.map((bit) => bit === 1);
  if (!Array.isArray(settings.sbits)) return null;
  const count = Array.isArray(settings.ps) ? settings.ps.length : (finite(settings.nbrd) ?? 0) * 8;
  return Array.from({ length: count }, (_, index) => bitSet(settings.sbits, index));
}

function stationStates(device: DeviceDocument): Record<string, StationState> | null {
  const bits = outputBits(device);
  if (!bits) return null;
  const queue = Array.isArray(device.settings.ps) ? device.settings.ps : [];
  const count = finite(device.status.nstations) ?? bits.length;
  const states: Record<string, StationState> = {};
  for (let index = 0; index < count; index++) {
    const running = bits[index] === true;
    states[String(index + 1)] = { running, remaining_s: running ? remainingSeconds(queue[index]) : null };
  }
  return states;
}

/** `ps[i] = [pid, rem, ...]`: rem when a program (or manual run) owns the station. */
function remainingSeconds(entry: unknown): number | null {
  if (!Array.isArray(entry)) return null;
  const pid = finite(entry[0]);
  const rem = finite(entry[1]);
  return pid !== null && pid !== 0 && rem !== null && rem >= 0 ? rem : null;
}

function waterLevel(options: Json): number | null {
  const wl = finite(options.wl);
  return wl !== null && wl >= 0 && wl <= WATER_LEVEL_MAX ? wl : null;
}

function hasFlowSensor(options: Json): boolean {
  return options.sn1t === SENSOR_TYPE_FLOW;
}

/** See the header: clicks in the window times the pulse volume, per minute, in US gallons. */
function flowRateGpm(
  { settings, options }: DeviceDocument,
  unit: OpenSprinklerConfig['flow_pulse_unit'],
): number | null {
  if (!unit || !hasFlowSensor(options)) return null;
  const windowS = finite(settings.flwrt);
  const clicks = finite(settings.flcrt);
  const fpr0 = finite(options.fpr0);
  const fpr1 = finite(options.fpr1);
  if (windowS === null || windowS <= 0 || clicks === null || fpr0 === null || fpr1 === null) return null;
  const volumePerClick = (fpr1 * 256 + fpr0) / 100;
  const perMinute = (clicks * volumePerClick * 60) / windowS;
  const gallons = unit === 'gal' ? perMinute : perMinute / LITERS_PER_GALLON;
  return Math.round(gallons * 1000) / 1000;
}

function stationName(name: unknown, index: number): string {
  return typeof name === 'string' && name.trim() !== '' ? name : `Station ${index + 1}`;
}

export const openSprinklerKind: ControllerKindDefinition<OpenSprinklerConfig> = {
  kind: 'opensprinkler',
  label: 'OpenSprinkler (direct HTTP)',
  configSchema,
  stationExpectation: 'a 1-based station number such as "1"',
  parseStation: (station) => STATION.test(station.trim()),
  create: (ctx) => new OpenSprinklerController(ctx),
};
