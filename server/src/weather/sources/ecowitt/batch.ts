import type { WeatherField } from '../../fields';
import type { DeviceRecord, ExtraReading, Reading, SourceBatch, StrikeEvent } from '../../source';

/**
 * What the two Ecowitt parsers (LAN livedata and console upload) share: the
 * extra-reading keys, so a sensor keeps one key whichever way its gateway is
 * read, and a collector that drops missing values instead of zeroing them.
 */

export type RainGauge = 'auto' | 'tipping' | 'piezo';
export const RAIN_GAUGES = ['auto', 'tipping', 'piezo'] as const satisfies readonly RainGauge[];

/** Extra-reading keys. Channel sensors append `:<channel>`. */
export const EXTRA = {
  indoorTempF: 'indoor_temp_f',
  indoorRhPct: 'indoor_rh_pct',
  /** Relative (sea-level corrected) pressure; the snapshot's pressure_inhg is absolute. */
  pressureSeaLevelInhg: 'pressure_sea_level_inhg',
  windMaxDayMph: 'wind_max_day_mph',
  windAvg10mMph: 'wind_avg10m_mph',
  windDirAvg10mDeg: 'wind_dir_avg10m_deg',
  rainEventIn: 'rain_event_in',
  rainHourlyIn: 'rain_hourly_in',
  rain24hIn: 'rain_24h_in',
  rainWeekIn: 'rain_week_in',
  rainMonthIn: 'rain_month_in',
  rainYearIn: 'rain_year_in',
  soilMoisturePct: 'soil_moisture_pct',
  soilTempF: 'soil_temp_f',
  tempF: 'temp_f',
  rhPct: 'rh_pct',
  probeTempF: 'probe_temp_f',
  leafWetnessPct: 'leaf_wetness_pct',
  leak: 'leak',
  pm25: 'pm25_ugm3',
  co2Ppm: 'co2_ppm',
  co2TempF: 'co2_temp_f',
  co2RhPct: 'co2_rh_pct',
  co2Pm25: 'co2_pm25_ugm3',
  co2Pm10: 'co2_pm10_ugm3',
  /** The lightning sensor's strike count for the gateway's day (resets at its midnight). */
  lightningCountToday: 'lightning_count_today',
  /** Distance of the last strike the sensor detected. */
  lightningDistanceMi: 'lightning_distance_mi',
  battery: 'battery',
} as const;

export function channelKey(base: string, channel: string | number): string {
  return `${base}:${channel}`;
}

export interface GatewayInfo {
  sourceId: string;
  host: string | null;
  model: string | null;
  firmware: string | null;
}

/** Collects one message's values; a null value is no evidence and is dropped. */
export class BatchCollector {
  private readonly readings: Reading[] = [];
  private readonly extras: ExtraReading[] = [];
  private readonly strikes: StrikeEvent[] = [];

  constructor(readonly observedEpoch: number) {}

  /** The first value for a field wins (a message names each field once). */
  reading(field: WeatherField, value: number | null): void {
    if (value === null || !Number.isFinite(value)) return;
    if (this.readings.some((r) => r.field === field)) return;
    this.readings.push({ field, value, observedEpoch: this.observedEpoch });
  }

  extra(key: string, value: number | null, label?: string): void {
    if (value === null || !Number.isFinite(value)) return;
    if (this.extras.some((e) => e.key === key)) return;
    const entry: ExtraReading = { key, value, observedEpoch: this.observedEpoch };
    if (label !== undefined && label !== '') entry.label = label;
    this.extras.push(entry);
  }

  strike(strike: StrikeEvent): void {
    this.strikes.push(strike);
  }

  hasValues(): boolean {
    return this.readings.length > 0 || this.extras.length > 0;
  }

  build(gateway: GatewayInfo): SourceBatch {
    const sensors = [...new Set([...this.readings.map((r) => r.field), ...this.extras.map((e) => e.key)])];
    const device: DeviceRecord = {
      id: gatewayDeviceId(gateway.sourceId),
      kind: 'gateway',
      source_id: gateway.sourceId,
      model: gateway.model,
      serial: null,
      firmware: gateway.firmware,
      host: gateway.host,
      sensors: sensors.sort(),
      battery_v: null,
      rssi_dbm: null,
      last_seen_epoch: this.observedEpoch,
      status_note: null,
    };
    const batch: SourceBatch = {
      readings: [...this.readings],
      extras: [...this.extras],
      devices: [device],
    };
    if (this.strikes.length > 0) batch.strikes = [...this.strikes];
    return batch;
  }
}

/** The PASSKEY identifies a gateway but is a secret, so the device id is derived from the source id. */
export function gatewayDeviceId(sourceId: string): string {
  return `${sourceId}:gateway`;
}

/**
 * "GW1100A_V2.3.4" -> model GW1100A, firmware V2.3.4. A string without a
 * `_V<digits>` suffix is all model.
 */
export function splitModelVersion(text: string): { model: string | null; firmware: string | null } {
  const trimmed = text.trim();
  if (trimmed === '') return { model: null, firmware: null };
  const match = /^(.+?)_(V\d[\w.]*)$/i.exec(trimmed);
  if (match) return { model: match[1] ?? null, firmware: match[2] ?? null };
  return { model: trimmed, firmware: null };
}
