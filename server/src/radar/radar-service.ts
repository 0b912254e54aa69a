import type { Clock } from '../core/clock';
import type { Logger } from '../core/logger';
import { REPOSITORY, SERVICE_VERSION } from '../core/version';
import { type Bbox, bboxKey, type Grid, gridFor, round, snapBbox } from './bbox';
import { RadarCache, type Served } from './cache';
import {
  NHC_CURRENT_STORMS_PATH,
  NHC_DEFAULT_BASE_URL,
  parseNhcCurrentStorms,
  type PointFeature,
  TropicalFormatError,
} from './tropical';
import { finiteOrNull, getJson, isRecord, RadarUpstreamError } from './upstream';

/**
 * Radar map data (spec 4.7, limits in 8):
 *
 * - windGrid: 10 m wind over the bbox's 8x8 grid as the two records (U, then
 *   V, m/s) grib2json emits and leaflet-velocity draws. One Open-Meteo request
 *   for the 64 points. Cached 30 minutes.
 * - precipFrames: the next 8 quarter-hours of precipitation (mm per 15 min)
 *   over the same grid, plus the largest value. Cached 15 minutes.
 * - tropical: active storms as a GeoJSON FeatureCollection with a per-agency
 *   health list. Cached 10 minutes (1 minute while an agency is failing, so it
 *   is retried soon).
 *
 * Upstream failures become RadarUpstreamError (the routes answer 502). When a
 * refetch fails, an earlier answer is served instead while it is not too old
 * (wind 2 h, precipitation 30 min, a tropical agency's storms 1 h), marked
 * `stale: true` (see cache.ts). Missing values stay null, never 0.
 */

export const OPEN_METEO_DEFAULT_BASE_URL = 'https://api.open-meteo.com';
export const RADAR_USER_AGENT = `raincheck/${SERVICE_VERSION} (${REPOSITORY})`;

const MINUTE_MS = 60_000;
export const WIND_TTL_MS = 30 * MINUTE_MS;
export const PRECIP_TTL_MS = 15 * MINUTE_MS;
export const TROPICAL_TTL_MS = 10 * MINUTE_MS;
/** How soon a tropical document with a failed agency is refetched. */
export const TROPICAL_PARTIAL_TTL_MS = MINUTE_MS;
export const WIND_STALE_LIMIT_MS = 120 * MINUTE_MS;
export const PRECIP_STALE_LIMIT_MS = 30 * MINUTE_MS;
export const TROPICAL_STALE_LIMIT_MS = 60 * MINUTE_MS;

export const PRECIP_FRAMES = 8;
export const PRECIP_FRAME_S = 900;

export type TropicalFormat = 'nhc-current-storms';

/** One parser per feed format; only NHC's is implemented. */
const TROPICAL_PARSERS: Record<TropicalFormat, (body: unknown, agency: string) => PointFeature[]> = {
  'nhc-current-storms': parseNhcCurrentStorms,
};

export interface TropicalAgencyConfig {
  /** Name shown in `sources[].agency` and on each feature. */
  agency: string;
  format: TropicalFormat;
  url: string;
}

export interface RadarServiceOptions {
  clock: Clock;
  logger: Logger;
  /** Defaults to the global fetch. */
  fetch?: typeof fetch;
  /** Scheme and host of the Open-Meteo forecast API (`/v1/forecast` is appended). */
  openMeteoBaseUrl?: string;
  /** Scheme and host of the NHC site (`/CurrentStorms.json` is appended) for the default agency list. */
  nhcBaseUrl?: string;
  /** Replaces the default agency list (NHC alone). */
  tropicalAgencies?: TropicalAgencyConfig[];
  /** Per upstream request, body included. Default 10 s. */
  timeoutMs?: number;
  /** Per cache (wind, precipitation). Default 64 bboxes. */
  maxCacheEntries?: number;
}

/**
 * The grib2json record header fields leaflet-velocity reads. Parameter
 * category 2 (momentum) number 2 is the U component, 3 the V component
 * (GRIB2 code table 4.2, discipline 0). Scan mode 0: `la1` is the north edge,
 * rows run north to south and `dy` is positive.
 */
export interface WindHeader {
  discipline: 0;
  parameterCategory: 2;
  parameterNumber: 2 | 3;
  parameterNumberName: 'U-component_of_wind' | 'V-component_of_wind';
  parameterUnit: 'm.s-1';
  surface1Type: 103;
  surface1Value: 10;
  nx: number;
  ny: number;
  numberPoints: number;
  lo1: number;
  la1: number;
  lo2: number;
  la2: number;
  dx: number;
  dy: number;
  scanMode: 0;
  /** ISO 8601 UTC time of the model values (Open-Meteo's `current.time`). */
  refTime: string;
  /** Hours after refTime (always 0: current conditions). */
  forecastTime: 0;
}

export interface WindRecord {
  header: WindHeader;
  component: 'u' | 'v';
  unit: 'm/s';
  /** nx*ny values in scan order; null where the speed or direction is missing. */
  data: (number | null)[];
  fetched_epoch: number;
  stale: boolean;
}

export interface PrecipGrid {
  nx: number;
  ny: number;
  lo1: number;
  la1: number;
  lo2: number;
  la2: number;
  dx: number;
  dy: number;
  /** Column longitudes, west to east. */
  lons: number[];
  /** Row latitudes, north to south. */
  lats: number[];
}

export interface PrecipFrame {
  /** Start of the quarter-hour. */
  time_epoch: number;
  /** mm in the quarter-hour per grid point, index = row * nx + col; null = unknown. */
  values: (number | null)[];
}

export interface PrecipFrames {
  frames: PrecipFrame[];
  /** Largest non-null value over all frames; null when every value is null. */
  max_mm: number | null;
  unit: 'mm';
  interval_s: number;
  grid: PrecipGrid;
  fetched_epoch: number;
  stale: boolean;
}

export interface TropicalSourceStatus {
  agency: string;
  ok: boolean;
  /** Why the last attempt failed; null when ok. */
  error: string | null;
  /** When the storms served for this agency were fetched; null when none ever were. */
  fetched_epoch: number | null;
  /** Storms served for this agency; null when unknown (failed with nothing earlier to serve). */
  storm_count: number | null;
  /** True when the storms served are from an earlier fetch because this one failed. */
  stale: boolean;
}

export interface TropicalCollection {
  type: 'FeatureCollection';
  features: PointFeature[];
  sources: TropicalSourceStatus[];
  fetched_epoch: number;
  stale: boolean;
}

interface WindValue {
  grid: Grid;
  refTime: string;
  u: (number | null)[];
  v: (number | null)[];
}

interface PrecipValue {
  grid: Grid;
  frames: PrecipFrame[];
  maxMm: number | null;
}

interface TropicalValue {
  features: PointFeature[];
  sources: TropicalSourceStatus[];
}

/** Wind speed unit labels Open-Meteo returns, to m/s. */
const SPEED_TO_MS: Record<string, number> = {
  'm/s': 1,
  'km/h': 1 / 3.6,
  'mp/h': 0.44704,
  mph: 0.44704,
  kn: 0.514444,
};
/** Precipitation unit labels, to mm. */
const DEPTH_TO_MM: Record<string, number> = { mm: 1, inch: 25.4 };

const DEG = Math.PI / 180;

/**
 * Meteorological direction is where the wind comes FROM, clockwise from
 * north. The vector points the other way: U (eastward) = -speed*sin(dir),
 * V (northward) = -speed*cos(dir). Null in, null out; a calm 0 stays 0.
 */
export function windComponents(
  speedMs: number | null,
  fromDeg: number | null,
): { u: number; v: number } | null {
  if (speedMs === null || fromDeg === null || speedMs < 0) return null;
  return {
    u: round(-speedMs * Math.sin(fromDeg * DEG), 3),
    v: round(-speedMs * Math.cos(fromDeg * DEG), 3),
  };
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}

function epochS(ms: number): number {
  return Math.floor(ms / 1000);
}

export class RadarService {
  private readonly clock: Clock;
  private readonly log: Logger;
  private readonly fetchImpl: typeof fetch;
  private readonly openMeteoBaseUrl: string;
  private readonly agencies: TropicalAgencyConfig[];
  private readonly timeoutMs: number;
  private readonly windCache: RadarCache<WindValue>;
  private readonly precipCache: RadarCache<PrecipValue>;
  private readonly tropicalCache: RadarCache<TropicalValue>;
  /** Each agency's last good storms, for when it fails. */
  private readonly lastGood = new Map<string, { features: PointFeature[]; fetchedMs: number }>();

  constructor(options: RadarServiceOptions) {
    this.clock = options.clock;
    this.log = options.logger.child({ module: 'radar' });
    this.fetchImpl = options.fetch ?? fetch;
    this.openMeteoBaseUrl = trimSlash(options.openMeteoBaseUrl ?? OPEN_METEO_DEFAULT_BASE_URL);
    const nhcBase = trimSlash(options.nhcBaseUrl ?? NHC_DEFAULT_BASE_URL);
    this.agencies = options.tropicalAgencies ?? [
      { agency: 'NHC', format: 'nhc-current-storms', url: `${nhcBase}${NHC_CURRENT_STORMS_PATH}` },
    ];
    this.timeoutMs = options.timeoutMs ?? 10_000;
    const maxEntries = options.maxCacheEntries ?? 64;
    const onStale = (what: string) => (key: string, error: RadarUpstreamError) =>
      this.log.warn({ what, key, err: error.message }, 'radar upstream failed; serving the earlier answer');
    this.windCache = new RadarCache<WindValue>({
      clock: this.clock,
      ttlMs: WIND_TTL_MS,
      staleLimitMs: WIND_STALE_LIMIT_MS,
      maxEntries,
      onStale: onStale('windgrid'),
    });
    this.precipCache = new RadarCache<PrecipValue>({
      clock: this.clock,
      ttlMs: PRECIP_TTL_MS,
      staleLimitMs: PRECIP_STALE_LIMIT_MS,
      maxEntries,
      onStale: onStale('precip'),
    });
    this.tropicalCache = new RadarCache<TropicalValue>({
      clock: this.clock,
      ttlMs: TROPICAL_TTL_MS,
      // Staleness is judged per agency (fetchAgency): a whole cached document may hold
      // storms that were already stale when it was assembled.
      staleLimitMs: 0,
      maxEntries: 1,
      onStale: onStale('tropical'),
    });
  }

  /** U then V over the (snapped) bbox. Throws RadarUpstreamError. */
  async windGrid(bbox: Bbox): Promise<[WindRecord, WindRecord]> {
    const snapped = snapBbox(bbox);
    const served = await this.windCache.get(bboxKey(snapped), async () => ({
      value: await this.fetchWind(gridFor(snapped)),
    }));
    const { grid, refTime, u, v } = served.value;
    const record = (component: 'u' | 'v', data: (number | null)[]): WindRecord => ({
      header: windHeader(grid, component, refTime),
      component,
      unit: 'm/s',
      data: [...data],
      fetched_epoch: epochS(served.fetchedMs),
      stale: served.stale,
    });
    return [record('u', u), record('v', v)];
  }

  /** 8 quarter-hour frames over the (snapped) bbox. Throws RadarUpstreamError. */
  async precipFrames(bbox: Bbox): Promise<PrecipFrames> {
    const snapped = snapBbox(bbox);
    const served = await this.precipCache.get(bboxKey(snapped), async () => ({
      value: await this.fetchPrecip(gridFor(snapped)),
    }));
    const { grid, frames, maxMm } = served.value;
    return {
      frames: frames.map((frame) => ({ time_epoch: frame.time_epoch, values: [...frame.values] })),
      max_mm: maxMm,
      unit: 'mm',
      interval_s: PRECIP_FRAME_S,
      grid: {
        nx: grid.nx,
        ny: grid.ny,
        lo1: grid.lo1,
        la1: grid.la1,
        lo2: grid.lo2,
        la2: grid.la2,
        dx: grid.dx,
        dy: grid.dy,
        lons: [...grid.lons],
        lats: [...grid.lats],
      },
      fetched_epoch: epochS(served.fetchedMs),
      stale: served.stale,
    };
  }

  /** Active storms from every agency. Throws RadarUpstreamError only when no agency has anything to serve. */
  async tropical(): Promise<TropicalCollection> {
    const served: Served<TropicalValue> = await this.tropicalCache.get('all', () => this.fetchTropical());
    const { features, sources } = served.value;
    return {
      type: 'FeatureCollection',
      features: features.map((f) => ({ ...f, properties: { ...f.properties } })),
      sources: sources.map((s) => ({ ...s })),
      fetched_epoch: epochS(served.fetchedMs),
      stale: served.stale || sources.some((s) => s.stale),
    };
  }

  private openMeteoUrl(grid: Grid, extra: string[]): string {
    const coord = (n: number) => String(round(n, 6));
    const params = [
      `latitude=${grid.points.map((p) => coord(p.lat)).join(',')}`,
      `longitude=${grid.points.map((p) => coord(p.lon)).join(',')}`,
      ...extra,
      'timeformat=unixtime',
      // A map grid wants the model cell each point falls in, land or sea.
      'cell_selection=nearest',
    ];
    return `${this.openMeteoBaseUrl}/v1/forecast?${params.join('&')}`;
  }

  /** The list of per-location results, one per grid point, in request order. */
  private async openMeteoLocations(grid: Grid, extra: string[]): Promise<unknown[]> {
    const body = await getJson({
      fetch: this.fetchImpl,
      url: this.openMeteoUrl(grid, extra),
      upstream: 'Open-Meteo',
      timeoutMs: this.timeoutMs,
      headers: { 'User-Agent': RADAR_USER_AGENT },
    });
    if (!Array.isArray(body) || body.length !== grid.points.length) {
      if (isRecord(body) && body.error === true) {
        throw new RadarUpstreamError('Open-Meteo', 'Open-Meteo answered with an error');
      }
      throw new RadarUpstreamError(
        'Open-Meteo',
        `Open-Meteo answer is not a list of ${grid.points.length} locations`,
      );
    }
    return body;
  }

  private async fetchWind(grid: Grid): Promise<WindValue> {
    const locations = await this.openMeteoLocations(grid, [
      'current=wind_speed_10m,wind_direction_10m',
      'wind_speed_unit=ms',
    ]);
    const u: (number | null)[] = [];
    const v: (number | null)[] = [];
    let withCurrent = 0;
    let refS: number | null = null;
    for (const location of locations) {
      const current = isRecord(location) ? location.current : undefined;
      if (!isRecord(location) || !isRecord(current)) {
        u.push(null);
        v.push(null);
        continue;
      }
      withCurrent++;
      const units = isRecord(location.current_units) ? location.current_units : {};
      const factor = unitFactor(units.wind_speed_10m, SPEED_TO_MS, 'wind speed');
      const speed = finiteOrNull(current.wind_speed_10m);
      const components = windComponents(
        speed === null ? null : speed * factor,
        finiteOrNull(current.wind_direction_10m),
      );
      u.push(components?.u ?? null);
      v.push(components?.v ?? null);
      const time = finiteOrNull(current.time);
      if (time !== null && (refS === null || time > refS)) refS = time;
    }
    if (withCurrent === 0) {
      throw new RadarUpstreamError('Open-Meteo', 'Open-Meteo answer has no current conditions');
    }
    const refMs = refS === null ? this.clock.nowMs() : refS * 1000;
    return { grid, refTime: new Date(refMs).toISOString(), u, v };
  }

  private async fetchPrecip(grid: Grid): Promise<PrecipValue> {
    const locations = await this.openMeteoLocations(grid, [
      'minutely_15=precipitation',
      `forecast_minutely_15=${PRECIP_FRAMES}`,
      'precipitation_unit=mm',
    ]);
    // Per point: quarter-hour start -> mm.
    const series: Map<number, number | null>[] = [];
    let firstS: number | null = null;
    for (const location of locations) {
      const values = new Map<number, number | null>();
      series.push(values);
      const block = isRecord(location) ? location.minutely_15 : undefined;
      if (!isRecord(location) || !isRecord(block) || !Array.isArray(block.time)) continue;
      const units = isRecord(location.minutely_15_units) ? location.minutely_15_units : {};
      const factor = unitFactor(units.precipitation, DEPTH_TO_MM, 'precipitation');
      const amounts = Array.isArray(block.precipitation) ? block.precipitation : [];
      block.time.forEach((t, i) => {
        const time = finiteOrNull(t);
        if (time === null) return;
        if (firstS === null || time < firstS) firstS = time;
        const mm = finiteOrNull(amounts[i]);
        values.set(time, mm === null || mm < 0 ? null : round(mm * factor, 3));
      });
    }
    if (firstS === null) {
      throw new RadarUpstreamError('Open-Meteo', 'Open-Meteo answer has no 15-minute precipitation');
    }
    const start: number = firstS;
    let maxMm: number | null = null;
    const frames: PrecipFrame[] = Array.from({ length: PRECIP_FRAMES }, (_, k) => {
      const time = start + k * PRECIP_FRAME_S;
      const values = series.map((points) => points.get(time) ?? null);
      for (const value of values) if (value !== null && (maxMm === null || value > maxMm)) maxMm = value;
      return { time_epoch: time, values };
    });
    return { grid, frames, maxMm };
  }

  private async fetchTropical(): Promise<{ value: TropicalValue; ttlMs: number }> {
    const results = await Promise.all(this.agencies.map((agency) => this.fetchAgency(agency)));
    const features = results.flatMap((r) => r.features);
    const sources = results.map((r) => r.status);
    if (sources.every((s) => s.storm_count === null)) {
      const reasons = sources.map((s) => s.error ?? 'failed').join('; ');
      throw new RadarUpstreamError('tropical', `no tropical agency answered: ${reasons}`);
    }
    const allOk = sources.every((s) => s.ok);
    return { value: { features, sources }, ttlMs: allOk ? TROPICAL_TTL_MS : TROPICAL_PARTIAL_TTL_MS };
  }

  private async fetchAgency(
    config: TropicalAgencyConfig,
  ): Promise<{ features: PointFeature[]; status: TropicalSourceStatus }> {
    const { agency } = config;
    try {
      const body = await getJson({
        fetch: this.fetchImpl,
        url: config.url,
        upstream: agency,
        timeoutMs: this.timeoutMs,
        headers: { 'User-Agent': RADAR_USER_AGENT },
      });
      const features = TROPICAL_PARSERS[config.format](body, agency);
      const fetchedMs = this.clock.nowMs();
      this.lastGood.set(agency, { features, fetchedMs });
      return {
        features,
        status: {
          agency,
          ok: true,
          error: null,
          fetched_epoch: epochS(fetchedMs),
          storm_count: features.length,
          stale: false,
        },
      };
    } catch (err) {
      const known = err instanceof RadarUpstreamError || err instanceof TropicalFormatError;
      const error = known ? (err as Error).message : `${agency} answer could not be read`;
      this.log.warn({ agency, err: known ? error : err }, 'tropical agency failed');
      const earlier = this.lastGood.get(agency);
      if (earlier && this.clock.nowMs() - earlier.fetchedMs <= TROPICAL_STALE_LIMIT_MS) {
        return {
          features: earlier.features,
          status: {
            agency,
            ok: false,
            error,
            fetched_epoch: epochS(earlier.fetchedMs),
            storm_count: earlier.features.length,
            stale: true,
          },
        };
      }
      return {
        features: [],
        status: { agency, ok: false, error, fetched_epoch: null, storm_count: null, stale: false },
      };
    }
  }
}

/** The factor to the unit we asked for; an absent label means we got what we asked for. */
function unitFactor(label: unknown, table: Record<string, number>, what: string): number {
  if (label === undefined) return 1;
  const factor = typeof label === 'string' ? table[label] : undefined;
  if (factor === undefined) throw new RadarUpstreamError('Open-Meteo', `Open-Meteo ${what} unit is unknown`);
  return factor;
}

function windHeader(grid: Grid, component: 'u' | 'v', refTime: string): WindHeader {
  return {
    discipline: 0,
    parameterCategory: 2,
    parameterNumber: component === 'u' ? 2 : 3,
    parameterNumberName: component === 'u' ? 'U-component_of_wind' : 'V-component_of_wind',
    parameterUnit: 'm.s-1',
    surface1Type: 103,
    surface1Value: 10,
    nx: grid.nx,
    ny: grid.ny,
    numberPoints: grid.nx * grid.ny,
    lo1: grid.lo1,
    la1: grid.la1,
    lo2: grid.lo2,
    la2: grid.la2,
    dx: grid.dx,
    dy: grid.dy,
    scanMode: 0,
    refTime,
    forecastTime: 0,
  };
}
