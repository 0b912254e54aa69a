import type { z } from 'zod';
import { lazySchema } from '../../../core/zod-lazy';
import { PAST_DAYS_DEFAULT } from '../../../config/builtin-kinds';
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
} from './cloud-poll';

/**
 * `open_meteo`: current conditions from the Open-Meteo forecast API
 * (`/v1/forecast?current=...`, https://open-meteo.com/en/docs). Model output,
 * not a measurement: the `current` block is the model's 15-minute step that
 * contains now, `current.time` its start (taken as the observation time).
 *
 * Units are read from `current_units` and converted; a unit label this client
 * does not know leaves that field absent rather than guessed (Open-Meteo says
 * `mp/h` for mph, so nothing here matches on "mph" alone). `precipitation` is
 * the amount over the step, served as an hourly rate. No `rain_in_today`: a
 * model's precipitation is not a measured local-day total.
 */

export const OPEN_METEO_DEFAULT_BASE_URL = 'https://api.open-meteo.com';
const DEFAULT_STEP_S = 900;

export const CURRENT_VARIABLES = [
  'temperature_2m',
  'relative_humidity_2m',
  'surface_pressure',
  'precipitation',
  'rain',
  'wind_speed_10m',
  'wind_gusts_10m',
  'wind_direction_10m',
  'shortwave_radiation',
  'uv_index',
  'is_day',
] as const;

export const openMeteoConfigSchema = lazySchema((z) =>
  z.looseObject({
    past_days: z.number().int().nullish().describe('clamped to 1..7 at runtime; null = 3'),
    base_url: baseUrlSchema(z),
    poll_interval_s: pollIntervalSchema(z),
    timeout_s: timeoutSchema(z),
  }),
);

export type OpenMeteoConfig = z.infer<typeof openMeteoConfigSchema>;

export function clampPastDays(days: number | null | undefined): number {
  if (days === null || days === undefined || !Number.isFinite(days)) return PAST_DAYS_DEFAULT;
  return Math.min(7, Math.max(1, Math.round(days)));
}

const identity = (v: number) => v;
type Converter = (v: number) => number;

const TEMPERATURE: Record<string, Converter> = { '°F': identity, '°C': convert.cToF };
const SPEED: Record<string, Converter> = {
  'mp/h': identity,
  mph: identity,
  'km/h': convert.kmhToMph,
  'm/s': convert.msToMph,
  kn: (v) => v * 1.15077944802354,
};
const DEPTH: Record<string, Converter> = { inch: identity, mm: convert.mmToIn };
const PRESSURE: Record<string, Converter> = { hPa: convert.hpaToInhg };
const PERCENT: Record<string, Converter> = { '%': identity };
const DEGREES: Record<string, Converter> = { '°': identity };
const IRRADIANCE: Record<string, Converter> = { 'W/m²': identity, 'W/m2': identity };

export class OpenMeteoCurrentSource extends PolledCloudSource {
  readonly kind = 'open_meteo';
  private readonly baseUrl: string;
  private readonly pastDays: number;
  private readonly warnedUnits = new Set<string>();

  constructor(ctx: SourceContext, config: OpenMeteoConfig) {
    super(
      ctx,
      config.poll_interval_s ?? POLL_INTERVAL_DEFAULT_S,
      config.timeout_s ?? REQUEST_TIMEOUT_DEFAULT_S,
    );
    this.baseUrl = trimSlash(config.base_url ?? OPEN_METEO_DEFAULT_BASE_URL);
    this.pastDays = clampPastDays(config.past_days);
  }

  /** The request URL (commas left literal, as the provider documents them). */
  requestUrl(): string {
    const { lat, lon, elevationM } = this.ctx.location;
    const params = [
      `latitude=${coordinate(lat)}`,
      `longitude=${coordinate(lon)}`,
      // The configured site elevation steers the model's downscaling (temperature lapse, surface pressure).
      ...(elevationM !== null ? [`elevation=${elevationM}`] : []),
      `current=${CURRENT_VARIABLES.join(',')}`,
      'hourly=precipitation_probability',
      'forecast_hours=1',
      'temperature_unit=fahrenheit',
      'wind_speed_unit=mph',
      'precipitation_unit=inch',
      'timezone=auto',
      'timeformat=unixtime',
      `past_days=${this.pastDays}`,
    ];
    return `${this.baseUrl}/v1/forecast?${params.join('&')}`;
  }

  protected async fetchBatch(signal: AbortSignal): Promise<SourceBatch> {
    const answer = await this.get(this.requestUrl(), { Accept: 'application/json' }, signal);
    const body = answer.json;
    const reason = isRecord(body) && typeof body.reason === 'string' ? body.reason : null;
    if (answer.status < 200 || answer.status > 299) {
      throw new PollFailure(`Open-Meteo HTTP ${answer.status}${reason ? `: ${reason}` : ''}`);
    }
    if (!isRecord(body)) throw new PollFailure('Open-Meteo answer is not a JSON object');
    if (body.error === true) throw new PollFailure(`Open-Meteo error: ${reason ?? 'no reason given'}`);
    const current = body.current;
    const units = body.current_units;
    if (!isRecord(current) || !isRecord(units)) {
      throw new PollFailure('Open-Meteo answer has no current block with units');
    }
    const time = finite(current.time);
    if (units.time !== 'unixtime' || time === undefined) {
      throw new PollFailure('Open-Meteo current.time is not a unix time');
    }
    const stepS = positive(finite(current.interval)) ?? DEFAULT_STEP_S;

    const set = new ReadingSet(time);
    const value = (key: string, table: Record<string, Converter> | null): number | undefined => {
      const raw = finite(current[key]);
      if (raw === undefined) return undefined;
      if (table === null) return raw; // dimensionless (uv_index)
      const unit = typeof units[key] === 'string' ? (units[key] as string) : '';
      const conv = table[unit];
      if (!conv) {
        this.warnUnit(key, unit);
        return undefined;
      }
      return conv(raw);
    };
    set.add('air_temp_f', value('temperature_2m', TEMPERATURE));
    set.add('rh_pct', value('relative_humidity_2m', PERCENT));
    set.add('pressure_inhg', value('surface_pressure', PRESSURE));
    set.add('wind_avg_mph', value('wind_speed_10m', SPEED));
    set.add('wind_gust_mph', value('wind_gusts_10m', SPEED));
    set.add('wind_dir_deg', value('wind_direction_10m', DEGREES));
    set.add('solar_w_m2', value('shortwave_radiation', IRRADIANCE));
    set.add('uv_index', value('uv_index', null));
    const stepAmount = value('precipitation', DEPTH);
    set.add('rain_intensity_in_hr', stepAmount === undefined ? undefined : (stepAmount * 3600) / stepS);
    set.add('pop_pct', this.currentHourPop(body, time));

    return { readings: set.readings(), devices: [this.device(body, set.fields())] };
  }

  /** precipitation_probability of the hourly step that contains `time` (null or missing: absent). */
  private currentHourPop(body: Record<string, unknown>, time: number): number | undefined {
    const hourly = body.hourly;
    const units = body.hourly_units;
    if (
      !isRecord(hourly) ||
      !Array.isArray(hourly.time) ||
      !Array.isArray(hourly.precipitation_probability)
    ) {
      return undefined;
    }
    if (
      isRecord(units) &&
      units.precipitation_probability !== undefined &&
      units.precipitation_probability !== '%'
    ) {
      this.warnUnit('hourly.precipitation_probability', String(units.precipitation_probability));
      return undefined;
    }
    const probabilities = hourly.precipitation_probability as unknown[];
    let found: number | undefined;
    (hourly.time as unknown[]).forEach((start, i) => {
      const s = finite(start);
      if (s !== undefined && s <= time && time < s + 3600) found = finite(probabilities[i]);
    });
    return found;
  }

  private device(body: Record<string, unknown>, sensors: WeatherField[]): DeviceRecord {
    const lat = finite(body.latitude);
    const lon = finite(body.longitude);
    const elevation = finite(body.elevation);
    const cell =
      lat !== undefined && lon !== undefined
        ? `grid cell ${lat}, ${lon}${elevation !== undefined ? ` (${elevation} m)` : ''}`
        : 'grid cell unknown';
    return {
      id: `open_meteo:${this.id}`,
      kind: 'cloud_account',
      source_id: this.id,
      model: 'Open-Meteo forecast (best match)',
      serial: null,
      firmware: null,
      host: new URL(this.baseUrl).host,
      sensors,
      battery_v: null,
      rssi_dbm: null,
      last_seen_epoch: epochSeconds(this.ctx.clock),
      status_note: `${cell}; model values, not measurements`,
    };
  }

  private warnUnit(key: string, unit: string): void {
    const tag = `${key}=${unit}`;
    if (this.warnedUnits.has(tag)) return;
    this.warnedUnits.add(tag);
    this.log.warn({ key, unit }, 'Open-Meteo unit not understood; the field is left absent');
  }
}

function positive(value: number | undefined): number | undefined {
  return value !== undefined && value > 0 ? value : undefined;
}

/** Builds the source from a config that must parse (throws otherwise); the kind's create() reports instead. */
export function createOpenMeteoSource(ctx: SourceContext): OpenMeteoCurrentSource {
  return new OpenMeteoCurrentSource(ctx, parseSourceConfig(openMeteoConfigSchema, ctx));
}

export const OPEN_METEO_FIELDS: readonly WeatherField[] = [
  'air_temp_f',
  'rh_pct',
  'pressure_inhg',
  'wind_avg_mph',
  'wind_gust_mph',
  'wind_dir_deg',
  'solar_w_m2',
  'uv_index',
  'rain_intensity_in_hr',
  'pop_pct',
];

export const openMeteoKind: SourceKindDefinition = {
  kind: 'open_meteo',
  label: 'Open-Meteo forecast model',
  provides: OPEN_METEO_FIELDS,
  configSchema: openMeteoConfigSchema,
  cloud: { honestyRank: 50, needsApiKey: false },
  create: (ctx) =>
    createChecked(
      'open_meteo',
      openMeteoConfigSchema,
      ctx,
      (config) => new OpenMeteoCurrentSource(ctx, config),
    ),
};
