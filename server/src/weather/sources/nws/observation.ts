import type { z } from 'zod';
import { lazySchema } from '../../../core/zod-lazy';
import { epochSeconds } from '../../../core/clock';
import { REPOSITORY, SERVICE_VERSION } from '../../../core/version';
import { convert, type WeatherField } from '../../fields';
import type { DeviceRecord, SourceBatch, SourceContext, SourceKindDefinition } from '../../source';
import { parseSourceConfig } from '../../source';
import {
  baseUrlSchema,
  createChecked,
  finite,
  isRecord,
  PolledCloudSource,
  PollFailure,
  pollIntervalSchema,
  POLL_INTERVAL_DEFAULT_S,
  ReadingSet,
  REQUEST_TIMEOUT_DEFAULT_S,
  timeoutSchema,
  trimSlash,
  type HttpAnswer,
} from '../open-meteo/cloud-poll';
import { stationFromAltimeterHpa, stationFromSeaLevelHpa } from '../open-meteo/station-pressure';

/**
 * `nws`: the latest measured observation of the nearest US National Weather
 * Service station (api.weather.gov, https://www.weather.gov/documentation/services-web-api).
 *
 * Flow: `/points/{lat},{lon}` (coordinates rounded to 4 decimals; more gives a
 * 301 AdjustPointPrecision) -> its `observationStations` URL -> the first
 * station (cached, re-resolved daily; `station_id` in the config skips this)
 * -> `/stations/{id}/observations/latest`. Every request carries the
 * User-Agent the API requires and asks for GeoJSON.
 *
 * Values are `{value, unitCode}` pairs; a null value, an unknown unit or a
 * value the API's quality control rejected (X, B) is left absent. The
 * observation's `timestamp` is the observation time.
 *
 * Pressure: the API's `barometricPressure` is the station's altimeter setting
 * (METAR `A3008` -> 101860 Pa), not station pressure, and `seaLevelPressure` is
 * the METAR SLP. The snapshot carries station pressure (as a Tempest reads
 * it), so the altimeter setting is taken back to the site's elevation with the
 * altimeter equation (the configured elevation, else the station's); when
 * only the sea-level value exists it is reduced with the standard atmosphere.
 * Without any elevation, pressure is left absent.
 */

export const NWS_DEFAULT_BASE_URL = 'https://api.weather.gov';
export const NWS_DEFAULT_USER_AGENT = `raincheck/${SERVICE_VERSION} (${REPOSITORY})`;
/** The station list near a point rarely changes; look again once a day. */
export const STATION_RESOLVE_EVERY_S = 86_400;
const STATION_ID = /^[A-Za-z0-9]{3,12}$/;
const NOTE_MAX = 300;

export const nwsConfigSchema = lazySchema((z) =>
  z.looseObject({
    base_url: baseUrlSchema(z),
    station_id: z
      .string()
      .regex(STATION_ID, 'a station identifier such as "KSAC"')
      .nullish()
      .describe('null = the first station the API lists for the location'),
    user_agent: z
      .string()
      .trim()
      .min(1)
      .max(256)
      .nullish()
      .describe(`null = "${NWS_DEFAULT_USER_AGENT}"; the API asks for contact details in it`),
    poll_interval_s: pollIntervalSchema(z),
    timeout_s: timeoutSchema(z),
  }),
);

export type NwsConfig = z.infer<typeof nwsConfigSchema>;

/** Latitude or longitude with at most 4 decimals, no trailing zeros (the API's point precision). */
export function pointCoordinate(value: number): string {
  const rounded = Number(value.toFixed(4));
  return String(Object.is(rounded, -0) ? 0 : rounded);
}

interface Quantity {
  value: number;
  unit: string;
}

/** `{value, unitCode, qualityControl}` -> a value and a bare unit, or undefined when there is none to use. */
function quantity(raw: unknown): Quantity | undefined {
  if (!isRecord(raw)) return undefined;
  const value = finite(raw.value);
  if (value === undefined) return undefined;
  const qc = typeof raw.qualityControl === 'string' ? raw.qualityControl.replace(/^qc:/, '') : null;
  if (qc === 'X' || qc === 'B') return undefined; // rejected by the API's quality control
  const unit = typeof raw.unitCode === 'string' ? raw.unitCode.replace(/^(wmoUnit|unit):/, '') : '';
  return { value, unit };
}

type Converter = (v: number) => number;
const identity = (v: number) => v;
const TEMPERATURE: Record<string, Converter> = {
  degC: convert.cToF,
  degF: identity,
  K: (k) => convert.cToF(k - 273.15),
};
const SPEED: Record<string, Converter> = {
  'km_h-1': convert.kmhToMph,
  'm_s-1': convert.msToMph,
  kn: (v) => v * 1.15077944802354,
};
const PERCENT: Record<string, Converter> = { percent: identity };
const ANGLE: Record<string, Converter> = { 'degree_(angle)': identity };
/** To hPa. */
const PRESSURE_HPA: Record<string, Converter> = { Pa: (pa) => pa / 100, hPa: identity };
/** To inches. Older answers state precipitation in metres (`wmoUnit:m`), newer ones in millimetres. */
const DEPTH_IN: Record<string, Converter> = {
  mm: convert.mmToIn,
  m: (m) => convert.mmToIn(m * 1000),
  cm: (cm) => convert.mmToIn(cm * 10),
};
const LENGTH_M: Record<string, Converter> = { m: identity, ft: (ft) => ft * 0.3048 };

interface StationChoice {
  id: string;
  name: string | null;
  resolvedEpoch: number;
}

export class NwsObservationSource extends PolledCloudSource {
  readonly kind = 'nws';
  private readonly baseUrl: string;
  private readonly headers: Record<string, string>;
  private readonly fixedStation: string | null;
  private station: StationChoice | null = null;
  private readonly warnedUnits = new Set<string>();

  constructor(ctx: SourceContext, config: NwsConfig) {
    super(
      ctx,
      config.poll_interval_s ?? POLL_INTERVAL_DEFAULT_S,
      config.timeout_s ?? REQUEST_TIMEOUT_DEFAULT_S,
    );
    this.baseUrl = trimSlash(config.base_url ?? NWS_DEFAULT_BASE_URL);
    this.headers = {
      'User-Agent': config.user_agent ?? NWS_DEFAULT_USER_AGENT,
      Accept: 'application/geo+json',
    };
    this.fixedStation = config.station_id ? config.station_id.toUpperCase() : null;
  }

  /** The station the source reads now (null before the first resolution). */
  stationId(): string | null {
    return this.fixedStation ?? this.station?.id ?? null;
  }

  protected async fetchBatch(signal: AbortSignal): Promise<SourceBatch> {
    const station = await this.chooseStation(signal);
    const url = `${this.baseUrl}/stations/${encodeURIComponent(station.id)}/observations/latest`;
    const answer = await this.get(url, this.headers, signal);
    if (answer.status === 404 && !this.fixedStation) this.station = null; // look for a station again next poll
    const body = this.expectJson(answer, `observation of ${station.id}`);
    const props = body.properties;
    if (!isRecord(props)) throw new PollFailure(`NWS observation of ${station.id} has no properties`);
    const observed = parseTimestamp(props.timestamp);
    if (observed === undefined)
      throw new PollFailure(`NWS observation of ${station.id} has no usable timestamp`);

    const set = new ReadingSet(observed);
    set.add('air_temp_f', this.convert(props, 'temperature', TEMPERATURE));
    set.add('rh_pct', this.convert(props, 'relativeHumidity', PERCENT));
    set.add('wind_avg_mph', this.convert(props, 'windSpeed', SPEED));
    set.add('wind_gust_mph', this.convert(props, 'windGust', SPEED));
    set.add('wind_dir_deg', this.convert(props, 'windDirection', ANGLE));
    set.add('pressure_inhg', this.stationPressureInhg(props));
    // The amount over the hour before the observation is that hour's mean rate.
    set.add('rain_intensity_in_hr', this.convert(props, 'precipitationLastHour', DEPTH_IN));
    return { readings: set.readings(), devices: [this.device(station, set.fields())] };
  }

  private stationPressureInhg(props: Record<string, unknown>): number | undefined {
    const elevationM = this.ctx.location.elevationM ?? this.convert(props, 'elevation', LENGTH_M);
    if (elevationM === undefined) return undefined;
    const altimeter = this.convert(props, 'barometricPressure', PRESSURE_HPA);
    if (altimeter !== undefined) return convert.hpaToInhg(stationFromAltimeterHpa(altimeter, elevationM));
    const seaLevel = this.convert(props, 'seaLevelPressure', PRESSURE_HPA);
    if (seaLevel !== undefined) return convert.hpaToInhg(stationFromSeaLevelHpa(seaLevel, elevationM));
    return undefined;
  }

  private async chooseStation(signal: AbortSignal): Promise<StationChoice> {
    const now = epochSeconds(this.ctx.clock);
    if (this.fixedStation) return { id: this.fixedStation, name: null, resolvedEpoch: now };
    const cached = this.station;
    if (cached && now - cached.resolvedEpoch < STATION_RESOLVE_EVERY_S) return cached;
    try {
      this.station = await this.resolveStation(signal, now);
    } catch (err) {
      // The daily re-check failed: keep reading yesterday's station, try again next poll.
      if (!cached || signal.aborted) throw err;
      this.log.warn({ station: cached.id, err: (err as Error).message }, 'NWS station re-resolution failed');
      return cached;
    }
    return this.station;
  }

  private async resolveStation(signal: AbortSignal, now: number): Promise<StationChoice> {
    const { lat, lon } = this.ctx.location;
    const point = `${pointCoordinate(lat)},${pointCoordinate(lon)}`;
    const points = this.expectJson(
      await this.get(`${this.baseUrl}/points/${point}`, this.headers, signal),
      'point',
    );
    const stationsUrl = isRecord(points.properties) ? points.properties.observationStations : undefined;
    if (typeof stationsUrl !== 'string' || !/^https?:\/\//.test(stationsUrl)) {
      throw new PollFailure(`NWS point ${point} names no observation stations`);
    }
    const list = this.expectJson(await this.get(stationsUrl, this.headers, signal), 'station list');
    const first = firstStation(list);
    if (!first) throw new PollFailure(`NWS lists no observation station near ${point}`);
    this.log.info({ station: first.id, point }, 'NWS observation station chosen');
    return { ...first, resolvedEpoch: now };
  }

  /** A 2xx JSON object, else a PollFailure carrying the problem document's detail. */
  private expectJson(answer: HttpAnswer, what: string): Record<string, unknown> {
    const body = answer.json;
    if (answer.status >= 200 && answer.status <= 299) {
      if (!isRecord(body)) throw new PollFailure(`NWS ${what}: answer is not a JSON object`);
      return body;
    }
    const problem = isRecord(body) ? (text(body.detail) ?? text(body.title)) : undefined;
    if (problem) throw new PollFailure(clip(`NWS ${what}: HTTP ${answer.status}: ${problem}`));
    if (answer.status === 403) {
      throw new PollFailure(`NWS ${what}: HTTP 403 (access denied; the API may be refusing this User-Agent)`);
    }
    throw new PollFailure(`NWS ${what}: HTTP ${answer.status}`);
  }

  private convert(
    props: Record<string, unknown>,
    key: string,
    table: Record<string, Converter>,
  ): number | undefined {
    const q = quantity(props[key]);
    if (!q) return undefined;
    const conv = table[q.unit];
    if (!conv) {
      const tag = `${key}=${q.unit}`;
      if (!this.warnedUnits.has(tag)) {
        this.warnedUnits.add(tag);
        this.log.warn({ key, unit: q.unit }, 'NWS unit not understood; the field is left absent');
      }
      return undefined;
    }
    return conv(q.value);
  }

  private device(station: StationChoice, sensors: WeatherField[]): DeviceRecord {
    return {
      id: `nws:${this.id}`,
      kind: 'cloud_account',
      source_id: this.id,
      model: 'NWS observation station',
      serial: station.id,
      firmware: null,
      host: new URL(this.baseUrl).host,
      sensors,
      battery_v: null,
      rssi_dbm: null,
      last_seen_epoch: epochSeconds(this.ctx.clock),
      status_note: station.name ? `station ${station.id} (${station.name})` : `station ${station.id}`,
    };
  }
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

function clip(note: string): string {
  return note.length > NOTE_MAX ? `${note.slice(0, NOTE_MAX - 1)}…` : note;
}

/** An ISO 8601 time with an explicit offset, as epoch seconds. */
function parseTimestamp(value: unknown): number | undefined {
  if (typeof value !== 'string' || !/(Z|[+-]\d{2}:?\d{2})$/.test(value)) return undefined;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : undefined;
}

/** The first station of a `/stations` FeatureCollection (features first, then the `observationStations` URL list). */
function firstStation(list: Record<string, unknown>): { id: string; name: string | null } | undefined {
  const feature = Array.isArray(list.features) ? list.features[0] : undefined;
  const props = isRecord(feature) ? feature.properties : undefined;
  if (
    isRecord(props) &&
    typeof props.stationIdentifier === 'string' &&
    STATION_ID.test(props.stationIdentifier)
  ) {
    return { id: props.stationIdentifier, name: text(props.name) ?? null };
  }
  const url = Array.isArray(list.observationStations) ? list.observationStations[0] : undefined;
  const id = typeof url === 'string' ? url.replace(/\/+$/, '').split('/').pop() : undefined;
  return id && STATION_ID.test(id) ? { id, name: null } : undefined;
}

/** Builds the source from a config that must parse (throws otherwise); the kind's create() reports instead. */
export function createNwsSource(ctx: SourceContext): NwsObservationSource {
  return new NwsObservationSource(ctx, parseSourceConfig(nwsConfigSchema, ctx));
}

export const NWS_FIELDS: readonly WeatherField[] = [
  'air_temp_f',
  'rh_pct',
  'pressure_inhg',
  'wind_avg_mph',
  'wind_gust_mph',
  'wind_dir_deg',
  'rain_intensity_in_hr',
];

export const nwsKind: SourceKindDefinition = {
  kind: 'nws',
  label: 'US National Weather Service (nearest station)',
  provides: NWS_FIELDS,
  configSchema: nwsConfigSchema,
  cloud: { honestyRank: 70, needsApiKey: false },
  create: (ctx) =>
    createChecked('nws', nwsConfigSchema, ctx, (config) => new NwsObservationSource(ctx, config)),
};
