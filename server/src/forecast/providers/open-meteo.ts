import { epochSeconds, type Clock } from '../../core/clock';
import { LocalTime } from '../../core/tz/local-time';
import { timeZone } from '../../core/tz/time-zone';
import { mphTo2mMs } from '../aggregate';
import {
  ForecastUnavailable,
  type DailyEntry,
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
  isRecord,
  num,
  percent,
  quote,
  round,
  trimSlash,
  type HttpProviderOptions,
} from './shared';

/**
 * Forecast from the Open-Meteo forecast API (`/v1/forecast`,
 * https://open-meteo.com/en/docs): hourly and daily series in °F, mph and
 * inches, `timezone` set to the deployment's IANA zone (never `auto`: the
 * daily rows must be the deployment's local days) and `timeformat=unixtime`.
 *
 * - Units are checked, not assumed: every series the answer carries must have
 *   the unit asked for (`°F`, `mp/h`, `inch`, `%`...); any other unit refuses
 *   the whole answer rather than serve, say, millimetres labelled inches.
 *   The precipitation unit applies to ET0 too (Open-Meteo docs).
 * - A null in a series stays null in its slot; a missing series is all nulls.
 * - Hour semantics: Open-Meteo states temperature, humidity and wind as the
 *   instant at `time`, but `precipitation`, `precipitation_probability` and
 *   `et0_fao_evapotranspiration` as the sum/probability of the hour BEFORE
 *   `time` ("preceding hour sum"). An HourlyEntry is the hour starting at
 *   `time_epoch`, so those three come from the step one hour later; the last
 *   hour of the series has none (null), and the first step's amount, which
 *   belongs to the hour before the series, is dropped.
 * - Daily rows are Open-Meteo's own day aggregates; `daily.time` is local
 *   midnight and is checked to be one in the deployment's zone. The 2 m mean
 *   wind comes from `wind_speed_10m_mean` by the FAO-56 log profile (eq. 47).
 */

export const OPEN_METEO_FORECAST_DEFAULT_BASE_URL = 'https://api.open-meteo.com';

export const OPEN_METEO_HOURLY = [
  'temperature_2m',
  'relative_humidity_2m',
  'precipitation',
  'precipitation_probability',
  'wind_speed_10m',
  'et0_fao_evapotranspiration',
] as const;

export const OPEN_METEO_DAILY = [
  'temperature_2m_max',
  'temperature_2m_min',
  'precipitation_sum',
  'precipitation_probability_max',
  'wind_speed_10m_max',
  'wind_speed_10m_mean',
  'relative_humidity_2m_mean',
  'relative_humidity_2m_max',
  'relative_humidity_2m_min',
  'et0_fao_evapotranspiration',
  'sunrise',
  'sunset',
  'shortwave_radiation_sum',
] as const;

type HourlyVar = (typeof OPEN_METEO_HOURLY)[number];
type DailyVar = (typeof OPEN_METEO_DAILY)[number];

const FAHRENHEIT = ['°F'];
const MPH = ['mp/h', 'mph'];
const INCH = ['inch'];
const PERCENT = ['%'];
const UNIXTIME = ['unixtime'];

/** The unit each requested variable must come back in. */
const UNITS: Record<HourlyVar | DailyVar, string[]> = {
  temperature_2m: FAHRENHEIT,
  relative_humidity_2m: PERCENT,
  precipitation: INCH,
  precipitation_probability: PERCENT,
  wind_speed_10m: MPH,
  et0_fao_evapotranspiration: INCH,
  temperature_2m_max: FAHRENHEIT,
  temperature_2m_min: FAHRENHEIT,
  precipitation_sum: INCH,
  precipitation_probability_max: PERCENT,
  wind_speed_10m_max: MPH,
  wind_speed_10m_mean: MPH,
  relative_humidity_2m_mean: PERCENT,
  relative_humidity_2m_max: PERCENT,
  relative_humidity_2m_min: PERCENT,
  sunrise: UNIXTIME,
  sunset: UNIXTIME,
  shortwave_radiation_sum: ['MJ/m²', 'MJ/m2'],
};

const LABEL = 'Open-Meteo';
const HOUR_S = 3600;

export class OpenMeteoForecastProvider implements ForecastProvider {
  readonly kind = 'open_meteo';
  readonly label = 'Open-Meteo forecast';
  readonly id: string;
  private readonly baseUrl: string;
  private readonly fetchImpl: typeof fetch;
  private readonly clock: Clock;
  private readonly timeoutMs: number;

  constructor(options: HttpProviderOptions) {
    this.id = options.id;
    this.baseUrl = trimSlash(options.baseUrl ?? OPEN_METEO_FORECAST_DEFAULT_BASE_URL);
    this.fetchImpl = options.fetch;
    this.clock = options.clock;
    this.timeoutMs = options.timeoutMs ?? FORECAST_TIMEOUT_DEFAULT_MS;
  }

  /** The request URL (commas left literal, as Open-Meteo documents them). */
  requestUrl(request: ForecastRequest, models: readonly string[] = []): string {
    const params = [
      `latitude=${coordinate(request.lat)}`,
      `longitude=${coordinate(request.lon)}`,
      // The site's elevation steers the model's downscaling (temperature lapse).
      ...(request.elevationM !== null && Number.isFinite(request.elevationM)
        ? [`elevation=${round(request.elevationM, 1)}`]
        : []),
      `hourly=${OPEN_METEO_HOURLY.join(',')}`,
      `daily=${OPEN_METEO_DAILY.join(',')}`,
      'temperature_unit=fahrenheit',
      'wind_speed_unit=mph',
      'precipitation_unit=inch',
      `timezone=${encodeURIComponent(request.timezone)}`,
      'timeformat=unixtime',
      `past_days=${clampInt(request.pastDays, 0, 92)}`,
      `forecast_days=${clampInt(request.forecastDays, 1, 16)}`,
      ...(models.length > 0 ? [`models=${models.map(encodeURIComponent).join(',')}`] : []),
    ];
    return `${this.baseUrl}/v1/forecast?${params.join('&')}`;
  }

  /** The default forecast (Open-Meteo's best-match blend of models: `model` null). */
  async fetch(request: ForecastRequest, signal?: AbortSignal): Promise<ProviderForecast> {
    const body = await this.get(request, [], signal);
    return this.parse(body, request, '', null, true);
  }

  /**
   * Several models in one request (`models=a,b`): every key comes back with a
   * `_<model>` suffix (unsuffixed when only one model is asked for). One
   * forecast per model, in the order asked; a model outside its domain or
   * horizon comes back as nulls, and stays nulls. A model whose series are
   * absent altogether is left out of the map.
   */
  async fetchModels(
    request: ForecastRequest,
    models: string[],
    signal?: AbortSignal,
  ): Promise<Map<string, ProviderForecast>> {
    const wanted = [...new Set(models)];
    const out = new Map<string, ProviderForecast>();
    if (wanted.length === 0) return out;
    for (const model of wanted) {
      if (!/^[a-z0-9_]{1,64}$/.test(model)) {
        throw new ForecastUnavailable(`${LABEL}: model id ${quote(model)} is not a model name`);
      }
    }
    const body = await this.get(request, wanted, signal);
    for (const model of wanted) {
      const suffix = wanted.length === 1 && !hasSuffixedKeys(body, model) ? '' : `_${model}`;
      if (!hasSeries(body, suffix)) continue;
      out.set(model, this.parse(body, request, suffix, model, false));
    }
    return out;
  }

  private async get(
    request: ForecastRequest,
    models: readonly string[],
    signal?: AbortSignal,
  ): Promise<Record<string, unknown>> {
    checkRequest(request, LABEL);
    const deadline = new FetchDeadline(this.timeoutMs, signal);
    const answer = await httpGet(
      this.fetchImpl,
      this.requestUrl(request, models),
      { Accept: 'application/json' },
      deadline,
      LABEL,
    );
    const body = answer.json;
    const reason = isRecord(body) && typeof body.reason === 'string' ? clip(body.reason) : null;
    if (answer.status < 200 || answer.status > 299) {
      throw new ForecastUnavailable(`${LABEL}: HTTP ${answer.status}${reason ? `: ${reason}` : ''}`);
    }
    if (!isRecord(body)) throw new ForecastUnavailable(`${LABEL}: answer is not a JSON object`);
    if (body.error === true) throw new ForecastUnavailable(`${LABEL}: ${reason ?? 'error without a reason'}`);
    return body;
  }

  private parse(
    body: Record<string, unknown>,
    request: ForecastRequest,
    suffix: string,
    model: string | null,
    requireDaily: boolean,
  ): ProviderForecast {
    const hourly = parseHourly(body, suffix);
    const daily = body.daily === undefined && !requireDaily ? [] : parseDaily(body, suffix, request.timezone);
    return {
      provider: 'open_meteo',
      model,
      fetched_at: epochSeconds(this.clock),
      hourly,
      daily,
    };
  }
}

function parseHourly(body: Record<string, unknown>, suffix: string): HourlyEntry[] {
  const { times, series } = block(body, 'hourly', suffix, OPEN_METEO_HOURLY);
  const index = new Map<number, number>();
  times.forEach((t, i) => index.set(t, i));
  return times.map((t, i) => {
    // Amounts and probabilities are stated at the END of their hour (see the header).
    const next = index.get(t + HOUR_S);
    const after = (name: HourlyVar) => (next === undefined ? null : series(name, next));
    const et0 = after('et0_fao_evapotranspiration');
    return {
      time_epoch: t,
      temp_f: series('temperature_2m', i),
      precip_in: after('precipitation'),
      precip_probability: percent(after('precipitation_probability')),
      wind_mph: series('wind_speed_10m', i),
      humidity_pct: series('relative_humidity_2m', i),
      et0_in: et0,
      et0_reported: et0 !== null,
    };
  });
}

function parseDaily(body: Record<string, unknown>, suffix: string, timezone: string): DailyEntry[] {
  const zone = timeZone(timezone);
  const { times, series } = block(body, 'daily', suffix, OPEN_METEO_DAILY);
  return times.map((t, i) => {
    const local = LocalTime.fromSeconds(t, zone);
    if (local.startOfDay().seconds !== t) {
      throw new ForecastUnavailable(
        `${LABEL}: daily rows do not start at local midnight in ${timezone}; refusing misaligned days`,
      );
    }
    const windMean = series('wind_speed_10m_mean', i);
    const humidity = series('relative_humidity_2m_mean', i);
    const et0 = series('et0_fao_evapotranspiration', i);
    return {
      date_local: local.isoDate ?? '',
      time_epoch: t,
      temp_max_f: series('temperature_2m_max', i),
      temp_min_f: series('temperature_2m_min', i),
      precip_sum_in: series('precipitation_sum', i),
      precip_probability_max: percent(series('precipitation_probability_max', i)),
      wind_max_mph: series('wind_speed_10m_max', i),
      wind_mean_2m_ms: windMean === null ? null : round(mphTo2mMs(windMean), 2),
      humidity_pct: humidity,
      humidity_mean_pct: humidity,
      humidity_max_pct: series('relative_humidity_2m_max', i),
      humidity_min_pct: series('relative_humidity_2m_min', i),
      et0_in: et0,
      et0_reported: et0 !== null,
      sunrise_epoch: wholeSeconds(series('sunrise', i)),
      sunset_epoch: wholeSeconds(series('sunset', i)),
      radiation_mj_m2: series('shortwave_radiation_sum', i),
    };
  });
}

interface Block<V extends string> {
  times: number[];
  series: (name: V, i: number) => number | null;
}

/** One `hourly`/`daily` object with its `_units`, units checked, keys with `suffix`. */
function block<V extends HourlyVar | DailyVar>(
  body: Record<string, unknown>,
  name: 'hourly' | 'daily',
  suffix: string,
  variables: readonly V[],
): Block<V> {
  const data = body[name];
  const units = body[`${name}_units`];
  if (!isRecord(data) || !Array.isArray(data.time)) {
    throw new ForecastUnavailable(`${LABEL}: answer has no ${name} series`);
  }
  if (!isRecord(units)) throw new ForecastUnavailable(`${LABEL}: answer has no ${name} units`);
  if (units.time !== 'unixtime') {
    throw new ForecastUnavailable(`${LABEL}: ${name} times are ${quote(units.time)}, not unixtime`);
  }
  const times = data.time.map((t) => num(t));
  if (times.some((t) => t === null || !Number.isInteger(t))) {
    throw new ForecastUnavailable(`${LABEL}: ${name} series has a time that is not an epoch`);
  }
  const columns = new Map<V, (number | null)[]>();
  for (const variable of variables) {
    const key = `${variable}${suffix}`;
    const raw = data[key];
    if (raw === undefined) continue; // not served: every slot null
    if (!Array.isArray(raw)) throw new ForecastUnavailable(`${LABEL}: ${name}.${key} is not a series`);
    const unit = units[key];
    const accepted = UNITS[variable];
    if (typeof unit !== 'string' || !accepted.includes(unit)) {
      throw new ForecastUnavailable(
        `${LABEL}: ${name}.${key} is in ${quote(unit)}, expected ${quote(accepted[0])}; ` +
          'refusing the answer rather than mislabel it',
      );
    }
    columns.set(
      variable,
      raw.map((v) => num(v)),
    );
  }
  return {
    times: times as number[],
    series: (variable, i) => columns.get(variable)?.[i] ?? null,
  };
}

function hasSuffixedKeys(body: Record<string, unknown>, model: string): boolean {
  const hourly = body.hourly;
  return isRecord(hourly) && Object.keys(hourly).some((k) => k.endsWith(`_${model}`));
}

/** Whether the answer carries any hourly series for this key suffix. */
function hasSeries(body: Record<string, unknown>, suffix: string): boolean {
  const hourly = body.hourly;
  return isRecord(hourly) && OPEN_METEO_HOURLY.some((v) => hourly[`${v}${suffix}`] !== undefined);
}

function wholeSeconds(value: number | null): number | null {
  return value === null ? null : Math.round(value);
}

function clampInt(value: number, min: number, max: number): number {
  if (!Number.isFinite(value)) return min;
  return Math.min(max, Math.max(min, Math.round(value)));
}

/** A coordinate for a query string: at most 6 decimals, never exponent notation. */
function coordinate(value: number): string {
  const rounded = Number(value.toFixed(6));
  return String(Object.is(rounded, -0) ? 0 : rounded);
}
