import { epochSeconds, type Clock } from '../../core/clock';
import { convert } from '../../weather/fields';
import { NWS_DEFAULT_USER_AGENT, pointCoordinate } from '../../weather/sources/nws/observation';
import { dailyFromHourly } from '../aggregate';
import {
  ForecastUnavailable,
  type ForecastProvider,
  type ForecastRequest,
  type HourlyEntry,
  type ProviderForecast,
} from '../types';
import {
  checkRequest,
  clip,
  FetchDeadline,
  FORECAST_TIMEOUT_DEFAULT_MS,
  httpGet,
  isoEpoch,
  isRecord,
  localSpan,
  num,
  percent,
  quote,
  round,
  trimSlash,
  withinSpan,
  type HttpAnswer,
  type HttpProviderOptions,
} from './shared';

/**
 * Backup forecast from the US National Weather Service (api.weather.gov),
 * United States only.
 *
 * Flow: `/points/{lat},{lon}` (4 decimals at most: more gets a 301) ->
 * `properties.forecastHourly` (cached per point: the grid mapping rarely
 * changes; dropped when that URL answers 404) -> `properties.periods`. Every
 * request carries the User-Agent the API requires.
 *
 * Per period: `startTime` (ISO with offset) is the hour's start;
 * `temperature` is a number with `temperatureUnit` (`F`/`C`), or in newer
 * answers (the `forecast_temperature_qv` feature) a `{value, unitCode}`;
 * `windSpeed` is a string ("10 mph", "5 to 10 mph", "15 km/h" with
 * `units=si`) or, newer (`forecast_wind_speed_qv`), `{value | minValue,
 * maxValue, unitCode}`; a range counts as its midpoint. `probabilityOfPrecipitation`
 * and `relativeHumidity` are `{value, unitCode}` with a nullable value. A unit
 * this client does not know refuses the answer rather than mislabel it.
 *
 * The hourly product has no precipitation amount and no ET0: `precip_in` and
 * `et0_in` are null (never 0) and `et0_reported` false. Daily rows come from
 * the hours of each local day in the deployment's zone (`dailyFromHourly`):
 * max/min/mean need 20 of the day's hours, so today's row (whose past hours
 * NWS no longer serves) and the last, partial day carry nulls; no daily sum of
 * rain; no sunrise/sunset.
 */

export const NWS_FORECAST_DEFAULT_BASE_URL = 'https://api.weather.gov';
export const NWS_OUTSIDE_COVERAGE = 'NWS covers the United States only';

const LABEL = 'NWS';
/** Points whose forecastHourly URL is kept; more than this and the cache starts over. */
const POINT_CACHE_MAX = 32;

export interface NwsForecastOptions extends HttpProviderOptions {
  /** The API asks for an identifying User-Agent (contact details welcome). */
  userAgent?: string;
}

type Converter = (v: number) => number;
const identity: Converter = (v) => v;
/** `temperatureUnit` letters and `wmoUnit:` codes, to °F. */
const TEMPERATURE: Record<string, Converter> = {
  F: identity,
  C: convert.cToF,
  degF: identity,
  degC: convert.cToF,
};
/** String units and `wmoUnit:` codes, to mph. */
const SPEED: Record<string, Converter> = {
  mph: identity,
  'km/h': convert.kmhToMph,
  'km_h-1': convert.kmhToMph,
  'm_s-1': convert.msToMph,
  'mi_h-1': identity,
  kn: (v) => v * 1.15077944802354,
};

export class NwsForecastProvider implements ForecastProvider {
  readonly kind = 'nws';
  readonly label = 'US National Weather Service forecast';
  readonly id: string;
  private readonly baseUrl: string;
  private readonly fetchImpl: typeof fetch;
  private readonly clock: Clock;
  private readonly timeoutMs: number;
  private readonly headers: Record<string, string>;
  private readonly hourlyUrls = new Map<string, string>();

  constructor(options: NwsForecastOptions) {
    this.id = options.id;
    this.baseUrl = trimSlash(options.baseUrl ?? NWS_FORECAST_DEFAULT_BASE_URL);
    this.fetchImpl = options.fetch;
    this.clock = options.clock;
    this.timeoutMs = options.timeoutMs ?? FORECAST_TIMEOUT_DEFAULT_MS;
    this.headers = {
      'User-Agent': options.userAgent?.trim() || NWS_DEFAULT_USER_AGENT,
      Accept: 'application/geo+json',
    };
  }

  async fetch(request: ForecastRequest, signal?: AbortSignal): Promise<ProviderForecast> {
    checkRequest(request, LABEL);
    const deadline = new FetchDeadline(this.timeoutMs, signal);
    const point = `${pointCoordinate(request.lat)},${pointCoordinate(request.lon)}`;
    let url = this.hourlyUrls.get(point);
    if (url === undefined) {
      url = await this.resolveHourlyUrl(point, deadline);
      if (this.hourlyUrls.size >= POINT_CACHE_MAX) this.hourlyUrls.clear();
      this.hourlyUrls.set(point, url);
    }
    const answer = await httpGet(this.fetchImpl, url, this.headers, deadline, LABEL);
    if (answer.status === 404) this.hourlyUrls.delete(point); // the grid moved: look the point up again next time
    const body = expectJson(answer, 'hourly forecast');
    const props = body.properties;
    const periods = isRecord(props) ? props.periods : undefined;
    if (!Array.isArray(periods)) throw new ForecastUnavailable(`${LABEL}: hourly forecast has no periods`);

    const hourly = withinSpan(
      periods.map(parsePeriod).filter((h): h is HourlyEntry => h !== null),
      localSpan(this.clock, request),
    );
    const now = epochSeconds(this.clock);
    if (!hourly.some((h) => h.time_epoch + 3600 > now)) {
      throw new ForecastUnavailable(`${LABEL}: hourly forecast has no periods from now on (stale answer)`);
    }
    return {
      provider: 'nws',
      model: null,
      fetched_at: now,
      hourly,
      daily: dailyFromHourly(hourly, request.timezone),
    };
  }

  private async resolveHourlyUrl(point: string, deadline: FetchDeadline): Promise<string> {
    const answer = await httpGet(
      this.fetchImpl,
      `${this.baseUrl}/points/${point}`,
      this.headers,
      deadline,
      LABEL,
    );
    if (answer.status === 404) {
      const problem = problemOf(answer.json);
      // InvalidPoint ("Data Unavailable For Requested Point") is the answer outside NWS land coverage.
      if (!problem.type || problem.type === 'InvalidPoint' || !problem.detail) {
        throw new ForecastUnavailable(NWS_OUTSIDE_COVERAGE);
      }
    }
    const body = expectJson(answer, 'point');
    const url = isRecord(body.properties) ? body.properties.forecastHourly : undefined;
    if (typeof url !== 'string' || !/^https?:\/\/[^\s]+$/.test(url)) {
      throw new ForecastUnavailable(`${LABEL}: point ${point} has no hourly forecast`);
    }
    return url;
  }
}

interface Problem {
  type: string | null;
  detail: string | null;
}

function problemOf(body: unknown): Problem {
  if (!isRecord(body)) return { type: null, detail: null };
  const type = typeof body.type === 'string' ? (body.type.split('/').pop() ?? null) : null;
  const detail = text(body.detail) ?? text(body.title);
  return { type, detail };
}

/** A 2xx JSON object, else a ForecastUnavailable carrying the problem document's detail. */
function expectJson(answer: HttpAnswer, what: string): Record<string, unknown> {
  const body = answer.json;
  if (answer.status >= 200 && answer.status <= 299) {
    if (!isRecord(body)) throw new ForecastUnavailable(`${LABEL} ${what}: answer is not a JSON object`);
    return body;
  }
  const { detail } = problemOf(body);
  if (detail) throw new ForecastUnavailable(clip(`${LABEL} ${what}: HTTP ${answer.status}: ${detail}`));
  if (answer.status === 403) {
    throw new ForecastUnavailable(
      `${LABEL} ${what}: HTTP 403 (access denied; the API may be refusing this User-Agent)`,
    );
  }
  throw new ForecastUnavailable(`${LABEL} ${what}: HTTP ${answer.status}`);
}

function text(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

/** One hourly period, or null when it has no usable start time. */
function parsePeriod(period: unknown): HourlyEntry | null {
  if (!isRecord(period)) return null;
  const start = isoEpoch(period.startTime);
  if (start === null) return null;
  return {
    time_epoch: start,
    temp_f: round(temperatureF(period), 1),
    precip_in: null, // the hourly product has no amounts: unknown, not dry
    precip_probability: percent(
      percentValue(period.probabilityOfPrecipitation, 'probabilityOfPrecipitation'),
    ),
    wind_mph: round(windMph(period.windSpeed), 1),
    humidity_pct: round(percentValue(period.relativeHumidity, 'relativeHumidity'), 1),
    et0_in: null,
    et0_reported: false,
  };
}

function unitCode(raw: Record<string, unknown>): string {
  return typeof raw.unitCode === 'string' ? raw.unitCode.replace(/^(wmoUnit|unit):/, '') : '';
}

function convertOrRefuse(table: Record<string, Converter>, unit: string, field: string): Converter {
  const conv = table[unit];
  if (!conv) {
    throw new ForecastUnavailable(
      `${LABEL}: ${field} in unknown unit ${quote(unit)}; refusing to mislabel it`,
    );
  }
  return conv;
}

function temperatureF(period: Record<string, unknown>): number | null {
  const raw = period.temperature;
  if (isRecord(raw)) {
    const value = num(raw.value);
    return value === null ? null : convertOrRefuse(TEMPERATURE, unitCode(raw), 'temperature')(value);
  }
  const value = num(raw);
  if (value === null) return null;
  const unit = typeof period.temperatureUnit === 'string' ? period.temperatureUnit : '';
  return convertOrRefuse(TEMPERATURE, unit, 'temperature')(value);
}

function percentValue(raw: unknown, field: string): number | null {
  if (!isRecord(raw)) return null;
  const value = num(raw.value);
  if (value === null) return null;
  const unit = unitCode(raw);
  if (unit !== 'percent' && unit !== '') {
    throw new ForecastUnavailable(
      `${LABEL}: ${field} in unknown unit ${quote(unit)}; refusing to mislabel it`,
    );
  }
  return value;
}

const WIND_TEXT = /^\s*(\d+(?:\.\d+)?)(?:\s*to\s*(\d+(?:\.\d+)?))?\s*(mph|km\/h)\s*$/i;

/** "10 mph", "5 to 10 mph", "15 km/h" or a quantitative value; a range is its midpoint. */
function windMph(raw: unknown): number | null {
  if (typeof raw === 'string') {
    const m = WIND_TEXT.exec(raw);
    if (!m) return null; // free text the API did not promise ("" or a word): no value
    const low = Number(m[1]);
    const high = m[2] === undefined ? low : Number(m[2]);
    return convertOrRefuse(SPEED, (m[3] ?? '').toLowerCase(), 'windSpeed')((low + high) / 2);
  }
  if (!isRecord(raw)) return null;
  const value = num(raw.value);
  const min = num(raw.minValue);
  const max = num(raw.maxValue);
  const speed = value ?? (min !== null && max !== null ? (min + max) / 2 : (max ?? min));
  return speed === null ? null : convertOrRefuse(SPEED, unitCode(raw), 'windSpeed')(speed);
}
