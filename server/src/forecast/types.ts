/**
 * Forecast shapes (spec 2.4). Every nullable measurement is null when the
 * provider gave no value for it, never 0. `et0_in` may be 0 only with
 * `et0_reported` true (the provider said zero).
 */

/** One hour, starting at `time_epoch` (a Window hour plus the extra hourly fields). */
export interface HourlyEntry {
  time_epoch: number;
  temp_f: number | null;
  precip_in: number | null;
  /** 0..100 */
  precip_probability: number | null;
  wind_mph: number | null;
  humidity_pct: number | null;
  et0_in: number | null;
  et0_reported: boolean;
}

/** One local calendar day of the deployment's time zone. */
export interface DailyEntry {
  /** `YYYY-MM-DD` in the deployment's time zone. */
  date_local: string;
  /** Local midnight as an epoch. */
  time_epoch: number;
  temp_max_f: number | null;
  temp_min_f: number | null;
  precip_sum_in: number | null;
  precip_probability_max: number | null;
  wind_max_mph: number | null;
  /** Mean wind at 2 m (FAO-56 reference height), m/s, from the 10 m wind by the FAO-56 log profile. */
  wind_mean_2m_ms: number | null;
  /** Legacy name of the day's mean relative humidity. */
  humidity_pct: number | null;
  humidity_mean_pct: number | null;
  /**
   * The day's highest and lowest relative humidity, % (FAO-56 eq. 17 for ET0); null when not served.
   * Optional: forecasts cached before these fields existed lack them.
   */
  humidity_max_pct?: number | null;
  humidity_min_pct?: number | null;
  et0_in: number | null;
  et0_reported: boolean;
  sunrise_epoch: number | null;
  sunset_epoch: number | null;
  /** Shortwave radiation sum, MJ/m2 (for ET0 when the provider reports none). */
  radiation_mj_m2: number | null;
}

/** What one provider fetch returns: past and future, hour-aligned, in the deployment's zone. */
export interface ProviderForecast {
  provider: string;
  model: string | null;
  /** Epoch seconds of the fetch. */
  fetched_at: number;
  hourly: HourlyEntry[];
  daily: DailyEntry[];
}

export interface ForecastRequest {
  lat: number;
  lon: number;
  elevationM: number | null;
  timezone: string;
  /** 1..7 */
  pastDays: number;
  /** Days ahead including today. */
  forecastDays: number;
}

/** A provider kind behind one interface (Open-Meteo, NWS, MET Norway, demo...). */
export interface ForecastProvider {
  readonly id: string;
  readonly kind: string;
  readonly label: string;
  fetch(request: ForecastRequest, signal?: AbortSignal): Promise<ProviderForecast>;
}

/** A provider failed; the message is safe to show (no keys or tokens). */
export class ForecastUnavailable extends Error {}

/** The forecast snapshot (spec 2.4). */
export interface ForecastSnapshot {
  last_refresh_epoch: number | null;
  source_reachable: boolean;
  source_label: string;
  source_is_backup: boolean;
  timezone: string;
  daily: DailyEntry[];
  past_daily: DailyEntry[];
  hourly: HourlyEntry[];
}
