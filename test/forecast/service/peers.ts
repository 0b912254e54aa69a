import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DateTime } from 'luxon';
import type { AppliedConfig } from '../../../server/src/config/config-types';
import type { JsonObject } from '../../../server/src/config/json-walk';
import { configSchema } from '../../../server/src/config/schema';
import { EventBus } from '../../../server/src/core/bus';
import { epochSeconds, ManualClock, type Clock } from '../../../server/src/core/clock';
import { silentLogger } from '../../../server/src/core/logger';
import { ForecastService } from '../../../server/src/forecast/forecast-service';
import { createForecastFactory } from '../../../server/src/forecast/plan';
import { Store } from '../../../server/src/store/store';
import { loopbackOnlyFetch } from '../../helpers/service';
import { json, LoopbackPeer, type PeerReply, type SeenRequest } from '../../helpers/loopback-peer';

/**
 * Loopback peers speaking the Open-Meteo `/v1/forecast` and NWS
 * (`/points` -> `forecastHourly`) protocols, built from the shared fixtures,
 * plus the config and a ForecastService wired like main.ts wires it (the real
 * provider factory, the real store) for the tests of this folder.
 */

export const HOUR = 3600;
export const DAY = 86_400;
export const ZONE = 'America/New_York';
/** New York City: inside the NWS coverage, so NWS is the backup. */
export const LAT = 40.7128;
export const LON = -74.006;

const FIXTURES = path.join(__dirname, 'fixtures');

function fixture<T>(name: string): T {
  return JSON.parse(fs.readFileSync(path.join(FIXTURES, name), 'utf8')) as T;
}

/** Epoch seconds of a local wall-clock time in `zone`. */
export function localEpoch(iso: string, zone = ZONE): number {
  const t = DateTime.fromISO(iso, { zone });
  if (!t.isValid) throw new Error(`bad local time ${iso}`);
  return t.toSeconds();
}

/** `YYYY-MM-DD` and `HH:mm` of an epoch in `zone`. */
export function local(epoch: number, zone = ZONE): { date: string; time: string; hour: number } {
  const t = DateTime.fromSeconds(epoch, { zone });
  return { date: t.toISODate() ?? '', time: t.toFormat('HH:mm'), hour: t.hour };
}

export type PeerMode = 'ok' | 'hang' | 'fail';
/** A value of one variable at one time (an hour start, or a local midnight for daily variables); null = the provider has none. */
export type Series = (t: number) => number | null;

const round = (v: number, digits: number): number => Number(v.toFixed(digits));
const hourIndex = (t: number): number => Math.floor(t / HOUR);

/** Plausible values, different every hour, with zeros where a real answer has them (dry hours, night ET0). */
export const DEFAULT_HOURLY: Record<string, Series> = {
  temperature_2m: (t) => round(62 + 14 * Math.sin((2 * Math.PI * ((hourIndex(t) % 24) - 15)) / 24), 1),
  relative_humidity_2m: (t) => 40 + (hourIndex(t) % 24) * 2,
  precipitation: (t) => round((hourIndex(t) % 4) * 0.01, 3),
  precipitation_probability: (t) => (hourIndex(t) % 10) * 10,
  wind_speed_10m: (t) => round(3 + (hourIndex(t) % 7) * 1.1, 1),
  et0_fao_evapotranspiration: (t) => (hourIndex(t) % 24 >= 12 ? 0.012 : 0),
};

export const DEFAULT_DAILY: Record<string, Series> = {
  temperature_2m_max: () => 84.2,
  temperature_2m_min: () => 61.5,
  precipitation_sum: () => 0.12,
  precipitation_probability_max: () => 40,
  wind_speed_10m_max: () => 14.3,
  wind_speed_10m_mean: () => 7.1,
  relative_humidity_2m_mean: () => 58,
  relative_humidity_2m_max: () => 86,
  relative_humidity_2m_min: () => 31,
  et0_fao_evapotranspiration: () => 0.18,
  sunrise: (t) => t + 6 * HOUR + 1800,
  sunset: (t) => t + 19 * HOUR + 2700,
  shortwave_radiation_sum: () => 21.4,
};

/** Values of an extra model: clearly not the default forecast's. */
export const MODEL_HOURLY: Record<string, Series> = {
  ...DEFAULT_HOURLY,
  temperature_2m: (t) => round((DEFAULT_HOURLY.temperature_2m?.(t) ?? 0) + 9, 1),
  precipitation: () => 0.05,
  precipitation_probability: () => 90,
};

interface UnitTables {
  hourly_units: Record<string, string>;
  daily_units: Record<string, string>;
}

/** Units of the sample answer, and of the variables the sample does not carry (open-meteo.md's unit list). */
const OPEN_METEO_SAMPLE = fixture<UnitTables & Record<string, unknown>>('open-meteo-forecast-sample.json');
const OPEN_METEO_UNITS: Record<string, string> = {
  ...OPEN_METEO_SAMPLE.hourly_units,
  ...OPEN_METEO_SAMPLE.daily_units,
  wind_speed_10m_mean: 'mp/h',
  relative_humidity_2m_mean: '%',
  relative_humidity_2m_max: '%',
  relative_humidity_2m_min: '%',
  shortwave_radiation_sum: 'MJ/m²',
};
/** The `models=` sample: its keys show the `_<model>` suffixing these answers follow. */
export const MODELS_SAMPLE = fixture<UnitTables>('open-meteo-models-sample.json');

export interface OpenMeteoPeerOptions {
  mode?: PeerMode;
  /** How a `models=` request answers; default: as `mode`. */
  modelsMode?: PeerMode;
  hourly?: Record<string, Series>;
  daily?: Record<string, Series>;
  /** The models a `models=` request gets series for (others get none), with their hourly values. */
  models?: Record<string, Record<string, Series>>;
}

/**
 * Open-Meteo `/v1/forecast` with `timeformat=unixtime`: `hourly.time` every
 * hour from local midnight `past_days` ago for `past_days + forecast_days`
 * local days (23 or 25 hours on DST days), `daily.time` the local midnights,
 * one `_units` entry per key, and with `models=a,b` every key suffixed
 * `_<model>`. Times are taken from the test clock, as the real server takes
 * them from its own.
 */
export class OpenMeteoPeer {
  readonly peer: LoopbackPeer;
  mode: PeerMode;
  modelsMode: PeerMode | undefined;
  hourly: Record<string, Series>;
  daily: Record<string, Series>;
  models: Record<string, Record<string, Series>>;

  constructor(
    private readonly clock: Clock,
    options: OpenMeteoPeerOptions = {},
  ) {
    this.mode = options.mode ?? 'ok';
    this.modelsMode = options.modelsMode;
    this.hourly = { ...DEFAULT_HOURLY, ...options.hourly };
    this.daily = { ...DEFAULT_DAILY, ...options.daily };
    this.models = options.models ?? {};
    this.peer = new LoopbackPeer((req) => this.answer(req));
  }

  get baseUrl(): string {
    return this.peer.baseUrl;
  }

  async start(): Promise<this> {
    await this.peer.start();
    return this;
  }

  /** Requests for hourly forecast series (the forecast providers'), without `models=` or with it. */
  forecastRequests(withModels = false): SeenRequest[] {
    return this.peer.requests.filter(
      (r) => r.path === '/v1/forecast' && r.query.has('daily') && r.query.has('models') === withModels,
    );
  }

  private answer(req: SeenRequest): PeerReply {
    const models = (req.query.get('models') ?? '').split(',').filter(Boolean);
    const mode = models.length > 0 ? (this.modelsMode ?? this.mode) : this.mode;
    if (mode === 'hang') return { status: 0, body: '', hang: true };
    if (mode === 'fail')
      return json(503, { error: true, reason: 'Service temporarily unavailable (test peer)' });
    if (req.path !== '/v1/forecast') return json(404, { error: true, reason: 'Not Found' });
    const zone = req.query.get('timezone') ?? 'GMT';
    const hourlyVars = (req.query.get('hourly') ?? '').split(',').filter(Boolean);
    const dailyVars = (req.query.get('daily') ?? '').split(',').filter(Boolean);
    if (hourlyVars.length === 0 || dailyVars.length === 0) {
      // The weather source's `current=` request: not what these tests are about.
      return json(400, { error: true, reason: 'this test peer serves hourly and daily series only' });
    }
    if (req.query.get('timeformat') !== 'unixtime' || !DateTime.now().setZone(zone).isValid) {
      return json(400, { error: true, reason: 'Invalid timezone or timeformat' });
    }
    for (const name of [...hourlyVars, ...dailyVars]) {
      if (OPEN_METEO_UNITS[name] === undefined) {
        return json(400, {
          error: true,
          reason: `Cannot initialize WeatherVariable from invalid String value ${name}`,
        });
      }
    }
    const pastDays = Number(req.query.get('past_days') ?? '0');
    const forecastDays = Number(req.query.get('forecast_days') ?? '7');
    const now = DateTime.fromSeconds(epochSeconds(this.clock), { zone });
    const first = now.startOf('day').minus({ days: pastDays });
    const midnights = [...Array(pastDays + forecastDays).keys()].map((d) =>
      first.plus({ days: d }).toSeconds(),
    );
    const end = first.plus({ days: pastDays + forecastDays }).toSeconds();
    const hours: number[] = [];
    for (let t = first.toSeconds(); t < end; t += HOUR) hours.push(t);

    const hourly: Record<string, unknown> = { time: hours };
    const hourlyUnits: Record<string, string> = { time: 'unixtime' };
    const daily: Record<string, unknown> = { time: midnights };
    const dailyUnits: Record<string, string> = { time: 'unixtime' };
    const emit = (suffix: string, hourlyValues: Record<string, Series>) => {
      for (const name of hourlyVars) {
        const series = hourlyValues[name];
        hourly[`${name}${suffix}`] = hours.map((t) => (series ? series(t) : null));
        hourlyUnits[`${name}${suffix}`] = OPEN_METEO_UNITS[name] as string;
      }
      for (const name of dailyVars) {
        const series = this.daily[name];
        daily[`${name}${suffix}`] = midnights.map((t) => (series ? series(t) : null));
        dailyUnits[`${name}${suffix}`] = OPEN_METEO_UNITS[name] as string;
      }
    };
    if (models.length === 0) emit('', this.hourly);
    for (const model of models) {
      const values = this.models[model];
      if (values) emit(`_${model}`, values);
    }
    return json(200, {
      latitude: Number(req.query.get('latitude')),
      longitude: Number(req.query.get('longitude')),
      generationtime_ms: 0.87,
      utc_offset_seconds: now.offset * 60,
      timezone: zone,
      timezone_abbreviation: now.toFormat('ZZZZ'),
      elevation: 10,
      hourly_units: hourlyUnits,
      hourly,
      daily_units: dailyUnits,
      daily,
    });
  }
}

interface NwsPeriod extends Record<string, unknown> {
  startTime: string;
}
const NWS_POINTS = JSON.stringify(fixture<unknown>('nws-points-sample.json'));
const NWS_HOURLY = fixture<{ properties: { periods: NwsPeriod[] } & Record<string, unknown> }>(
  'nws-forecast-hourly-sample.json',
);
const NWS_PERIOD = NWS_HOURLY.properties.periods[0] as NwsPeriod;
export const NWS_HOURLY_PATH = '/gridpoints/TAE/58,65/forecast/hourly';

export interface NwsPeerOptions {
  mode?: PeerMode;
  /** The zone the periods' start times are written in (the point's `timeZone`). */
  zone?: string;
  /** Periods served from the current hour on; the real API serves 156. */
  periods?: number;
}

/** api.weather.gov: `/points/{lat},{lon}` names the `forecastHourly` URL (on this peer), which lists hourly periods. */
export class NwsPeer {
  readonly peer: LoopbackPeer;
  mode: PeerMode;
  private readonly zone: string;
  private readonly periods: number;

  constructor(
    private readonly clock: Clock,
    options: NwsPeerOptions = {},
  ) {
    this.mode = options.mode ?? 'ok';
    this.zone = options.zone ?? ZONE;
    this.periods = options.periods ?? 156;
    this.peer = new LoopbackPeer((req, base) => this.answer(req, base));
  }

  get baseUrl(): string {
    return this.peer.baseUrl;
  }

  async start(): Promise<this> {
    await this.peer.start();
    return this;
  }

  pointRequests(): SeenRequest[] {
    return this.peer.requests.filter((r) => r.path.startsWith('/points/'));
  }

  hourlyRequests(): SeenRequest[] {
    return this.peer.requests.filter((r) => r.path === NWS_HOURLY_PATH);
  }

  private answer(req: SeenRequest, base: string): PeerReply {
    if (this.mode === 'hang') return { status: 0, body: '', hang: true };
    const problem = (status: number, type: string, title: string, detail: string) =>
      json(
        status,
        { type: `https://api.weather.gov/problems/${type}`, title, status, detail },
        'application/problem+json',
      );
    if (this.mode === 'fail') {
      return problem(500, 'UnexpectedProblem', 'Unexpected Problem', 'An unexpected problem has occurred.');
    }
    if (req.path.startsWith('/points/')) {
      return {
        status: 200,
        body: NWS_POINTS.split('https://api.weather.gov').join(base),
        contentType: 'application/geo+json',
      };
    }
    if (req.path === NWS_HOURLY_PATH) return json(200, this.hourly(), 'application/geo+json');
    return problem(404, 'NotFound', 'Not Found', `'${req.path}' is not a valid resource path`);
  }

  private hourly(): unknown {
    const now = epochSeconds(this.clock);
    const first = now - (now % HOUR);
    const iso = (t: number) =>
      DateTime.fromSeconds(t, { zone: this.zone }).toISO({ suppressMilliseconds: true });
    const periods = [...Array(this.periods).keys()].map((i) => {
      const start = first + i * HOUR;
      const hour = DateTime.fromSeconds(start, { zone: this.zone }).hour;
      return {
        ...NWS_PERIOD,
        number: i + 1,
        startTime: iso(start),
        endTime: iso(start + HOUR),
        isDaytime: hour >= 6 && hour < 18,
        temperature: 70 + (i % 12),
        temperatureUnit: 'F',
        probabilityOfPrecipitation: { unitCode: 'wmoUnit:percent', value: (i * 7) % 100 },
        relativeHumidity: { unitCode: 'wmoUnit:percent', value: 55 + (i % 30) },
        windSpeed: `${5 + (i % 6)} mph`,
      };
    });
    const issued = iso(first);
    return {
      ...NWS_HOURLY,
      properties: {
        ...NWS_HOURLY.properties,
        updated: issued,
        generatedAt: issued,
        updateTime: issued,
        validTimes: `${issued}/P7DT12H`,
        periods,
      },
    };
  }
}

/** Both peers, started; closed by closePeers (which also ends requests left hanging). */
export async function startPeers(
  clock: Clock,
  options: { openMeteo?: OpenMeteoPeerOptions; nws?: NwsPeerOptions } = {},
): Promise<{ om: OpenMeteoPeer; nws: NwsPeer }> {
  const om = await new OpenMeteoPeer(clock, options.openMeteo).start();
  const nws = await new NwsPeer(clock, options.nws).start();
  return { om, nws };
}

export interface SourceOptions {
  /** Seconds one forecast fetch may take (the source config's `timeout_s`). */
  timeoutS?: number;
  extraModels?: string[];
}

/** The config document: a US location in New York with the `open_meteo` and `nws` sources on the peers. */
export function configDocument(
  om: string | null,
  nws: string | null,
  options: SourceOptions & { timezone?: string } = {},
): JsonObject {
  const common: JsonObject = options.timeoutS === undefined ? {} : { timeout_s: options.timeoutS };
  const sources: JsonObject[] = [];
  if (om !== null) {
    sources.push({
      id: 'om',
      priority: 50,
      enabled: true,
      kind: 'open_meteo',
      config: {
        base_url: om,
        past_days: 3,
        ...common,
        ...(options.extraModels ? ({ extra_models: options.extraModels } as JsonObject) : {}),
      },
    });
  }
  if (nws !== null) {
    sources.push({
      id: 'nws',
      priority: 40,
      enabled: true,
      kind: 'nws',
      config: { base_url: nws, ...common },
    });
  }
  return {
    schema_version: 2,
    deployment: { location: { lat: LAT, lon: LON, elevation_m: 10 }, timezone: options.timezone ?? ZONE },
    sources,
  };
}

export function applied(document: JsonObject): AppliedConfig {
  return { config: configSchema.parse(document), document, appliedAtEpoch: 0, revision: 1 };
}

/** The same document as config.toml, for a booted service. */
export function configToml(document: JsonObject): string {
  const value = (v: unknown): string =>
    Array.isArray(v) ? `[${v.map(value).join(', ')}]` : JSON.stringify(v);
  const deployment = document.deployment as { location: JsonObject; timezone: string };
  const lines = [
    'schema_version = 2',
    '[deployment]',
    `timezone = ${value(deployment.timezone)}`,
    '[deployment.location]',
    ...Object.entries(deployment.location).map(([k, v]) => `${k} = ${value(v)}`),
  ];
  for (const source of document.sources as JsonObject[]) {
    lines.push('[[sources]]');
    for (const key of ['id', 'priority', 'enabled', 'kind']) lines.push(`${key} = ${value(source[key])}`);
    lines.push('[sources.config]');
    for (const [k, v] of Object.entries(source.config as JsonObject)) lines.push(`${k} = ${value(v)}`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * ForecastServices as main.ts builds them (real provider factory, real store,
 * cache file in a temp data folder), with peers and services stopped after
 * each test: peers first, so nothing waits on a request left hanging.
 */
export function forecastHarness(): {
  dataDir: () => string;
  store: () => Store;
  cachePath: () => string;
  /** Registers a peer to close after the test. */
  track: <T extends { peer: LoopbackPeer }>(peer: T) => T;
  service: (
    clock: ManualClock,
    config: () => AppliedConfig | null,
    options?: { demo?: boolean },
  ) => ForecastService;
} {
  let dir = '';
  let store: Store | null = null;
  const peers: LoopbackPeer[] = [];
  const services: ForecastService[] = [];
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'raincheck-forecast-'));
    store = Store.open(path.join(dir, 'raincheck.db'), silentLogger());
  });
  afterEach(async () => {
    for (const peer of peers.splice(0)) await peer.close();
    for (const service of services.splice(0)) await service.stop();
    store?.close();
    store = null;
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return {
    dataDir: () => dir,
    store: () => store as Store,
    cachePath: () => path.join(dir, 'forecast-cache.json'),
    track: (peer) => {
      peers.push(peer.peer);
      return peer;
    },
    service: (clock, config, options = {}) => {
      const service = new ForecastService({
        bus: new EventBus(),
        clock,
        logger: silentLogger(),
        config,
        store,
        cachePath: path.join(dir, 'forecast-cache.json'),
        demo: options.demo ?? false,
        factory: createForecastFactory({
          fetch: loopbackOnlyFetch,
          clock,
          userAgent: 'raincheck-test/1.0 (tests)',
        }),
        random: () => 0.5,
      });
      services.push(service);
      return service;
    },
  };
}

/** Polls `probe` until it returns a value (not null/undefined); fails after `timeoutMs`. */
export async function until<T>(
  probe: () => Promise<T | null | undefined> | T | null | undefined,
  timeoutMs = 8000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== null && value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
