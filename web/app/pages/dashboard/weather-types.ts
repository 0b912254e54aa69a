/** The weather and forecast resources the dashboard reads (spec 2.2, 2.4, 4.2). Open objects: extra fields are ignored. */

export type WeatherSnapshot = Partial<Record<string, unknown>> & {
  last_packet_epoch?: number | null;
  source_label?: string;
  has_live_station?: boolean;
  air_temp_live_epoch?: number | null;
  wind_live_epoch?: number | null;
  rh_live_epoch?: number | null;
  rain_live_epoch?: number | null;
  pressure_trend_inhg?: number[];
};

export interface ForecastDay {
  date_local: string;
  time_epoch?: number;
  temp_max_f?: number | null;
  temp_min_f?: number | null;
  precip_sum_in?: number | null;
  precip_probability_max?: number | null;
  et0_in?: number | null;
  et0_reported?: boolean;
}

export interface ForecastHour {
  time_epoch: number;
  temp_f: number | null;
  precip_in: number | null;
  precip_probability: number | null;
}

export interface ForecastSnapshot {
  /** Null before the first fetch (the server sends null then). */
  last_refresh_epoch: number | null;
  source_reachable: boolean;
  source_label: string;
  source_is_backup: boolean;
  timezone: string;
  daily: ForecastDay[];
  past_daily: ForecastDay[];
  hourly: ForecastHour[];
}

/** GET weather/history: the merged headline fields per minute, oldest first. */
export interface WeatherHistory {
  hours: number;
  fields: string[];
  rows: ({ epoch: number } & Record<string, number | null>)[];
}
