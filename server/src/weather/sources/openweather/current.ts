import type { z } from 'zod';
import { lazySchema } from '../../../core/zod-lazy';
import { epochSeconds } from '../../../core/clock';
import { convert, type WeatherField } from '../../fields';
import type { DeviceRecord, SourceBatch, SourceContext, SourceKindDefinition } from '../../source';
import { parseSourceConfig } from '../../source';
import {
  baseUrlSchema,
  coordinate,
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
} from '../open-meteo/cloud-poll';
import { stationFromSeaLevelHpa } from '../open-meteo/station-pressure';

/**
 * `openweather`: current conditions from OpenWeatherMap One Call API 3.0
 * (https://openweathermap.org/api/one-call-3), `units=imperial`: temp F,
 * wind mph, pressure hPa at sea level, humidity %, `rain.1h` in mm/h whatever
 * the units (the docs say only mm/h exists for it). `current.dt` is the
 * observation time; `pop` (0..1) of the hourly step containing it becomes
 * `pop_pct`. Keys the answer leaves out (no `rain`, no `wind_gust`) stay
 * absent. The sea-level pressure is brought to the site's elevation (the
 * snapshot carries station pressure); without a configured elevation it is
 * left absent.
 *
 * The API key travels only in the request URL: notes and logs never show it,
 * and a 401 is reported as "api key rejected".
 */

export const OPENWEATHER_DEFAULT_BASE_URL = 'https://api.openweathermap.org';

export const openWeatherConfigSchema = lazySchema((z) =>
  z.looseObject({
    api_key: z.string().trim().min(1, 'an OpenWeatherMap API key (One Call 3.0 subscription)'),
    base_url: baseUrlSchema(z),
    poll_interval_s: pollIntervalSchema(z),
    timeout_s: timeoutSchema(z),
  }),
);

export type OpenWeatherConfig = z.infer<typeof openWeatherConfigSchema>;

export class OpenWeatherCurrentSource extends PolledCloudSource {
  readonly kind = 'openweather';
  private readonly baseUrl: string;
  private readonly apiKey: string;
  private warnedNoElevation = false;

  constructor(ctx: SourceContext, config: OpenWeatherConfig) {
    super(
      ctx,
      config.poll_interval_s ?? POLL_INTERVAL_DEFAULT_S,
      config.timeout_s ?? REQUEST_TIMEOUT_DEFAULT_S,
      [config.api_key, encodeURIComponent(config.api_key)],
    );
    this.baseUrl = trimSlash(config.base_url ?? OPENWEATHER_DEFAULT_BASE_URL);
    this.apiKey = config.api_key;
  }

  private requestUrl(): string {
    const { lat, lon } = this.ctx.location;
    return (
      `${this.baseUrl}/data/3.0/onecall?lat=${coordinate(lat)}&lon=${coordinate(lon)}&exclude=minutely,daily,alerts` +
      `&units=imperial&appid=${encodeURIComponent(this.apiKey)}`
    );
  }

  protected async fetchBatch(signal: AbortSignal): Promise<SourceBatch> {
    const answer = await this.get(this.requestUrl(), { Accept: 'application/json' }, signal);
    const body = answer.json;
    if (answer.status === 401) throw new PollFailure('api key rejected');
    if (answer.status < 200 || answer.status > 299) {
      // Scrubbed before clipping, so a key echoed by the peer cannot survive in part.
      const message =
        isRecord(body) && typeof body.message === 'string' ? this.scrub(body.message.trim()) : '';
      throw new PollFailure(
        `OpenWeather HTTP ${answer.status}${message ? `: ${message.slice(0, 200)}` : ''}`,
      );
    }
    if (!isRecord(body)) throw new PollFailure('OpenWeather answer is not a JSON object');
    const current = body.current;
    if (!isRecord(current)) throw new PollFailure('OpenWeather answer has no current block');
    const dt = finite(current.dt);
    if (dt === undefined) throw new PollFailure('OpenWeather current.dt is missing');

    const set = new ReadingSet(dt);
    set.add('air_temp_f', finite(current.temp));
    set.add('rh_pct', finite(current.humidity));
    set.add('pressure_inhg', this.stationPressureInhg(finite(current.pressure)));
    set.add('wind_avg_mph', finite(current.wind_speed));
    set.add('wind_gust_mph', finite(current.wind_gust));
    set.add('wind_dir_deg', finite(current.wind_deg));
    set.add('uv_index', finite(current.uvi));
    const rainMmH = isRecord(current.rain) ? finite(current.rain['1h']) : undefined;
    set.add('rain_intensity_in_hr', rainMmH === undefined ? undefined : convert.mmToIn(rainMmH));
    const pop = hourContaining(body.hourly, dt);
    set.add('pop_pct', pop === undefined ? undefined : pop * 100);
    return { readings: set.readings(), devices: [this.device(set.fields())] };
  }

  private stationPressureInhg(seaLevelHpa: number | undefined): number | undefined {
    if (seaLevelHpa === undefined) return undefined;
    const elevationM = this.ctx.location.elevationM;
    if (elevationM === null) {
      if (!this.warnedNoElevation) {
        this.warnedNoElevation = true;
        this.log.warn('OpenWeather pressure is sea-level; without a site elevation it is left out');
      }
      return undefined;
    }
    return convert.hpaToInhg(stationFromSeaLevelHpa(seaLevelHpa, elevationM));
  }

  private device(sensors: WeatherField[]): DeviceRecord {
    return {
      id: `openweather:${this.id}`,
      kind: 'cloud_account',
      source_id: this.id,
      model: 'OpenWeatherMap One Call 3.0',
      serial: null,
      firmware: null,
      host: new URL(this.baseUrl).host,
      sensors,
      battery_v: null,
      rssi_dbm: null,
      last_seen_epoch: epochSeconds(this.ctx.clock),
      status_note: 'model values, not measurements',
    };
  }
}

/** `pop` of the hourly step whose hour contains `dt`, if the answer has one. */
function hourContaining(hourly: unknown, dt: number): number | undefined {
  if (!Array.isArray(hourly)) return undefined;
  for (const step of hourly) {
    if (!isRecord(step)) continue;
    const start = finite(step.dt);
    if (start !== undefined && start <= dt && dt < start + 3600) {
      const pop = finite(step.pop);
      return pop !== undefined && pop >= 0 && pop <= 1 ? pop : undefined;
    }
  }
  return undefined;
}

/** Builds the source from a config that must parse (throws otherwise); the kind's create() reports instead. */
export function createOpenWeatherSource(ctx: SourceContext): OpenWeatherCurrentSource {
  return new OpenWeatherCurrentSource(ctx, parseSourceConfig(openWeatherConfigSchema, ctx));
}

export const OPENWEATHER_FIELDS: readonly WeatherField[] = [
  'air_temp_f',
  'rh_pct',
  'pressure_inhg',
  'wind_avg_mph',
  'wind_gust_mph',
  'wind_dir_deg',
  'uv_index',
  'rain_intensity_in_hr',
  'pop_pct',
];

export const openWeatherKind: SourceKindDefinition = {
  kind: 'openweather',
  label: 'OpenWeatherMap (One Call 3.0)',
  provides: OPENWEATHER_FIELDS,
  configSchema: openWeatherConfigSchema,
  cloud: { honestyRank: 30, needsApiKey: true },
  create: (ctx) =>
    createChecked(
      'openweather',
      openWeatherConfigSchema,
      ctx,
      (config) => new OpenWeatherCurrentSource(ctx, config),
    ),
};
