import { epochSeconds, type Clock } from '../../core/clock';
import { REPOSITORY, SERVICE_VERSION } from '../../core/version';
import { convert } from '../../weather/fields';
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
  type HttpProviderOptions,
} from './shared';

/**
 * Forecast from MET Norway's Locationforecast 2.0 (`compact` product,
 * https://api.met.no/weatherapi/locationforecast/2.0/documentation; JSON
 * format: https://docs.api.met.no/doc/ForecastJSON). Global coverage, no key;
 * the terms of service require an identifying User-Agent (403 without one)
 * and at most 4 decimals in coordinates; `altitude` is whole metres.
 *
 * `properties.timeseries[]`: `time` (UTC ISO), `data.instant.details`
 * (`air_temperature` °C, `relative_humidity` %, `wind_speed` m/s at 10 m),
 * `data.next_1_hours.details.precipitation_amount` (mm over the hour starting
 * at `time`), plus `probability_of_precipitation` in the `complete` product
 * only (compact: null). Units are read from `properties.meta.units` and
 * checked; other units refuse the answer.
 *
 * Steps are hourly for the first ~2.5 days, then 6-hourly with only
 * `next_6_hours` amounts. A 6-hour amount is NOT spread over its hours: such
 * steps become an hourly entry with the instant values and null
 * precipitation, and the hours between them have no entry. No past hours,
 * no ET0. Daily rows come from the hours of each local day
 * (`dailyFromHourly`: 20 of the day's hours for max/min/mean, every hour for
 * a rain sum), so the 6-hourly days carry nulls.
 *
 * The answer's `Last-Modified` is kept and sent back as `If-Modified-Since`
 * (as the terms ask); a 304 reuses the previous answer.
 */

export const MET_NORWAY_DEFAULT_BASE_URL = 'https://api.met.no';
export const MET_NORWAY_DEFAULT_USER_AGENT = `raincheck/${SERVICE_VERSION} ${REPOSITORY}`;
const PATH = '/weatherapi/locationforecast/2.0/compact';
const LABEL = 'MET Norway';

export interface MetNorwayOptions extends HttpProviderOptions {
  /** The terms of service ask for the application name and a contact (URL or e-mail). */
  userAgent?: string;
}

/** The unit each value must come in (`meta.units`). */
const EXPECTED_UNITS = {
  air_temperature: 'celsius',
  relative_humidity: '%',
  wind_speed: 'm/s',
  precipitation_amount: 'mm',
  probability_of_precipitation: '%',
} as const satisfies Record<string, string>;
type UnitKey = keyof typeof EXPECTED_UNITS;

interface Remembered {
  url: string;
  lastModified: string;
  body: Record<string, unknown>;
}

export class MetNorwayProvider implements ForecastProvider {
  readonly kind = 'met_norway';
  readonly label = 'MET Norway forecast';
  readonly id: string;
  private readonly baseUrl: string;
  private readonly fetchImpl: typeof fetch;
  private readonly clock: Clock;
  private readonly timeoutMs: number;
  private readonly userAgent: string;
  private last: Remembered | null = null;

  constructor(options: MetNorwayOptions) {
    this.id = options.id;
    this.baseUrl = trimSlash(options.baseUrl ?? MET_NORWAY_DEFAULT_BASE_URL);
    this.fetchImpl = options.fetch;
    this.clock = options.clock;
    this.timeoutMs = options.timeoutMs ?? FORECAST_TIMEOUT_DEFAULT_MS;
    this.userAgent = options.userAgent?.trim() || MET_NORWAY_DEFAULT_USER_AGENT;
  }

  requestUrl(request: ForecastRequest): string {
    const params = [`lat=${fourDecimals(request.lat)}`, `lon=${fourDecimals(request.lon)}`];
    if (request.elevationM !== null && Number.isFinite(request.elevationM)) {
      params.push(`altitude=${Math.round(request.elevationM)}`);
    }
    return `${this.baseUrl}${PATH}?${params.join('&')}`;
  }

  async fetch(request: ForecastRequest, signal?: AbortSignal): Promise<ProviderForecast> {
    checkRequest(request, LABEL);
    const deadline = new FetchDeadline(this.timeoutMs, signal);
    const url = this.requestUrl(request);
    const headers: Record<string, string> = { 'User-Agent': this.userAgent, Accept: 'application/json' };
    const remembered = this.last?.url === url ? this.last : null;
    if (remembered) headers['If-Modified-Since'] = remembered.lastModified;

    const answer = await httpGet(this.fetchImpl, url, headers, deadline, LABEL);
    let body: Record<string, unknown>;
    if (answer.status === 304 && remembered) {
      body = remembered.body;
    } else {
      // 203: the product version is deprecated but still answers.
      if (answer.status !== 200 && answer.status !== 203)
        throw new ForecastUnavailable(statusMessage(answer.status));
      if (!isRecord(answer.json)) throw new ForecastUnavailable(`${LABEL}: answer is not a JSON object`);
      body = answer.json;
    }

    const timeseries = parseTimeseries(body);
    const lastModified = answer.headers.get('last-modified');
    if (answer.status !== 304) this.last = lastModified ? { url, lastModified, body } : null;

    const hourly = withinSpan(timeseries, localSpan(this.clock, request));
    const now = epochSeconds(this.clock);
    if (!hourly.some((h) => h.time_epoch + 3600 > now)) {
      throw new ForecastUnavailable(`${LABEL}: forecast has no steps from now on (stale answer)`);
    }
    return {
      provider: 'met_norway',
      model: null,
      fetched_at: now,
      hourly,
      daily: dailyFromHourly(hourly, request.timezone),
    };
  }
}

function statusMessage(status: number): string {
  switch (status) {
    case 400:
      return `${LABEL}: HTTP 400 (request refused as invalid)`;
    case 403:
      return `${LABEL}: HTTP 403 (access denied; the API refuses requests without an identifying User-Agent)`;
    case 404:
      return `${LABEL}: HTTP 404 (no such product)`;
    case 422:
      return `${LABEL}: HTTP 422 (no forecast for this location)`;
    case 429:
      return `${LABEL}: HTTP 429 (throttled; too many requests)`;
    default:
      return `${LABEL}: HTTP ${status}`;
  }
}

function parseTimeseries(body: Record<string, unknown>): HourlyEntry[] {
  const props = body.properties;
  const meta = isRecord(props) ? props.meta : undefined;
  const units = isRecord(meta) ? meta.units : undefined;
  const series = isRecord(props) ? props.timeseries : undefined;
  if (!Array.isArray(series)) throw new ForecastUnavailable(`${LABEL}: answer has no timeseries`);
  if (!isRecord(units)) throw new ForecastUnavailable(`${LABEL}: answer has no units`);
  for (const key of Object.keys(EXPECTED_UNITS) as UnitKey[]) {
    if (units[key] !== undefined && units[key] !== EXPECTED_UNITS[key]) throw wrongUnit(key, units[key]);
  }
  /** A value whose unit the answer states as the expected one (a value without a stated unit is refused too). */
  const value = (key: UnitKey, raw: unknown): number | null => {
    const n = num(raw);
    if (n !== null && units[key] !== EXPECTED_UNITS[key]) throw wrongUnit(key, units[key]);
    return n;
  };
  const out: HourlyEntry[] = [];
  for (const step of series) {
    if (!isRecord(step) || !isRecord(step.data)) continue;
    const time = isoEpoch(step.time);
    if (time === null) continue;
    const instant = details(step.data.instant);
    const hour = details(step.data.next_1_hours);
    const precipMm = value('precipitation_amount', hour.precipitation_amount);
    out.push({
      time_epoch: time,
      temp_f: round(mapNull(value('air_temperature', instant.air_temperature), convert.cToF), 2),
      // Only a next-hour amount is an hour's amount; 6- and 12-hour amounts are never spread.
      precip_in: round(mapNull(precipMm, convert.mmToIn), 6),
      precip_probability: percent(value('probability_of_precipitation', hour.probability_of_precipitation)),
      wind_mph: round(mapNull(value('wind_speed', instant.wind_speed), convert.msToMph), 2),
      humidity_pct: value('relative_humidity', instant.relative_humidity),
      et0_in: null,
      et0_reported: false,
    });
  }
  return out;
}

function wrongUnit(key: UnitKey, unit: unknown): ForecastUnavailable {
  return new ForecastUnavailable(
    `${LABEL}: ${key} is in ${quote(unit ?? null)}, expected ${quote(EXPECTED_UNITS[key])}; ` +
      'refusing the answer rather than mislabel it',
  );
}

function details(block: unknown): Record<string, unknown> {
  return isRecord(block) && isRecord(block.details) ? block.details : {};
}

function mapNull(value: number | null, fn: (v: number) => number): number | null {
  return value === null ? null : fn(value);
}

/** At most 4 decimals (the terms: more defeats their cache and risks a block). */
function fourDecimals(value: number): string {
  const rounded = Number(value.toFixed(4));
  return String(Object.is(rounded, -0) ? 0 : rounded);
}
