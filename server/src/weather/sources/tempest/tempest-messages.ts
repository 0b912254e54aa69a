import { convert, type WeatherField } from '../../fields';
import type { DeviceRecord, Reading, SourceBatch, StrikeEvent } from '../../source';

/**
 * WeatherFlow Tempest messages: the hub's local UDP broadcast (firmware v171,
 * https://apidocs.tempestwx.com/reference/tempest-udp-broadcast) and the same
 * data messages as the vendor websocket sends them (obs_st with 22 elements,
 * https://apidocs.tempestwx.com/reference/observation-record-format).
 *
 * Two pure steps: `parseTempestDatagram` checks the shape and names the
 * positional elements (never throws; null for anything it does not
 * understand), `tempestToBatch` converts a parsed message to snapshot units.
 *
 * Any element may be null (a sensor in low-power mode or failed): a null
 * element stays null and produces no reading, never a 0. A string where a
 * number belongs is a wrong shape and the whole message is rejected.
 */

type Num = number | null;

interface Header {
  /** `ST-`, `AR-`, `SK-` or `HB-` serial; absent in some websocket messages. */
  serialNumber: string | null;
  /** `hub_sn`; for hub_status the hub's own serial. */
  hubSerial: string | null;
  /** The vendor cloud's device id (websocket messages only). */
  deviceId: number | null;
}

/** One obs_st record. Elements 18..21 exist only in the REST/websocket form. */
export interface ObsStRecord {
  epoch: Num;
  windLullMs: Num;
  windAvgMs: Num;
  windGustMs: Num;
  windDirDeg: Num;
  windSampleIntervalS: Num;
  /** Station pressure (not sea-level), mbar = hPa. */
  stationPressureMb: Num;
  airTempC: Num;
  rhPct: Num;
  illuminanceLx: Num;
  uvIndex: Num;
  solarWm2: Num;
  /** Rain over the report interval (the previous minute in practice), mm. */
  rainMm: Num;
  /** 0 none, 1 rain, 2 hail, 3 rain + hail. */
  precipType: Num;
  lightningAvgDistKm: Num;
  lightningCount: Num;
  batteryV: Num;
  reportIntervalMin: Num;
  /** REST/websocket only: rain so far on the station's local day, mm. */
  localDayRainMm: Num;
  ncRainMm: Num;
  localDayNcRainMm: Num;
  precipAnalysisType: Num;
}

export interface ObsStMessage extends Header {
  type: 'obs_st';
  firmwareRevision: string | null;
  obs: ObsStRecord[];
}

export interface ObsAirRecord {
  epoch: Num;
  stationPressureMb: Num;
  airTempC: Num;
  rhPct: Num;
  lightningCount: Num;
  lightningAvgDistKm: Num;
  batteryV: Num;
  reportIntervalMin: Num;
}

export interface ObsAirMessage extends Header {
  type: 'obs_air';
  firmwareRevision: string | null;
  obs: ObsAirRecord[];
}

export interface ObsSkyRecord {
  epoch: Num;
  illuminanceLx: Num;
  uvIndex: Num;
  rainMm: Num;
  windLullMs: Num;
  windAvgMs: Num;
  windGustMs: Num;
  windDirDeg: Num;
  batteryV: Num;
  reportIntervalMin: Num;
  solarWm2: Num;
  localDayRainMm: Num;
  precipType: Num;
  windSampleIntervalS: Num;
}

export interface ObsSkyMessage extends Header {
  type: 'obs_sky';
  firmwareRevision: string | null;
  obs: ObsSkyRecord[];
}

export interface RapidWindMessage extends Header {
  type: 'rapid_wind';
  epoch: Num;
  speedMs: Num;
  dirDeg: Num;
}

export interface EvtStrikeMessage extends Header {
  type: 'evt_strike';
  epoch: Num;
  distanceKm: Num;
  energy: Num;
}

export interface EvtPrecipMessage extends Header {
  type: 'evt_precip';
  epoch: Num;
}

export interface HubStatusMessage extends Header {
  type: 'hub_status';
  serialNumber: string;
  /** A string in hub_status (e.g. "177"). */
  firmwareRevision: string | null;
  uptimeS: Num;
  rssiDbm: Num;
  epoch: Num;
  /** e.g. ["BOR", "PIN", "POR"]. */
  resetFlags: string[];
  seq: Num;
  /** [version, reboot count, I2C bus errors, radio status, radio network id]. */
  radioStats: Num[] | null;
}

export interface DeviceStatusMessage extends Header {
  type: 'device_status';
  serialNumber: string;
  epoch: Num;
  uptimeS: Num;
  voltage: Num;
  firmwareRevision: string | null;
  /** Device-side signal strength, dBm. */
  rssiDbm: Num;
  /** Hub-side signal strength, dBm. */
  hubRssiDbm: Num;
  sensorStatus: Num;
  debug: boolean | null;
}

export type TempestMessage =
  | ObsStMessage
  | ObsAirMessage
  | ObsSkyMessage
  | RapidWindMessage
  | EvtStrikeMessage
  | EvtPrecipMessage
  | HubStatusMessage
  | DeviceStatusMessage;

export type TempestMessageType = TempestMessage['type'];

/** UDP obs_st length; the REST/websocket record has 22. */
export const OBS_ST_UDP_LENGTH = 18;
export const OBS_ST_REST_LENGTH = 22;

// ---------------------------------------------------------------- parsing

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isNum(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}

/** A named field of a status message: a finite number, else null (absent, null or mistyped). */
function optNum(value: unknown): Num {
  return isNum(value) ? value : null;
}

function optString(value: unknown): string | null {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : null;
}

/** firmware_revision is a number in obs_* and device_status, a string in hub_status. */
function optFirmware(value: unknown): string | null {
  if (isNum(value)) return String(value);
  return optString(value);
}

/**
 * A positional array of numbers or nulls with at least `minLength` elements.
 * Anything else (not an array, too short, a string or object element) is a
 * wrong shape: null.
 */
function numArray(value: unknown, minLength: number): Num[] | null {
  if (!Array.isArray(value) || value.length < minLength) return null;
  const out: Num[] = [];
  for (const element of value as unknown[]) {
    if (element === null) out.push(null);
    else if (isNum(element)) out.push(element);
    else return null;
  }
  return out;
}

/** `obs`: an array of one or more positional records. */
function records<T>(value: unknown, minLength: number, name: (a: Num[]) => T): T[] | null {
  if (!Array.isArray(value) || value.length === 0) return null;
  const out: T[] = [];
  for (const inner of value as unknown[]) {
    const arr = numArray(inner, minLength);
    if (!arr) return null;
    out.push(name(arr));
  }
  return out;
}

const at = (a: Num[], i: number): Num => a[i] ?? null;

function nameObsSt(a: Num[]): ObsStRecord {
  return {
    epoch: at(a, 0),
    windLullMs: at(a, 1),
    windAvgMs: at(a, 2),
    windGustMs: at(a, 3),
    windDirDeg: at(a, 4),
    windSampleIntervalS: at(a, 5),
    stationPressureMb: at(a, 6),
    airTempC: at(a, 7),
    rhPct: at(a, 8),
    illuminanceLx: at(a, 9),
    uvIndex: at(a, 10),
    solarWm2: at(a, 11),
    rainMm: at(a, 12),
    precipType: at(a, 13),
    lightningAvgDistKm: at(a, 14),
    lightningCount: at(a, 15),
    batteryV: at(a, 16),
    reportIntervalMin: at(a, 17),
    localDayRainMm: at(a, 18),
    ncRainMm: at(a, 19),
    localDayNcRainMm: at(a, 20),
    precipAnalysisType: at(a, 21),
  };
}

function nameObsAir(a: Num[]): ObsAirRecord {
  return {
    epoch: at(a, 0),
    stationPressureMb: at(a, 1),
    airTempC: at(a, 2),
    rhPct: at(a, 3),
    lightningCount: at(a, 4),
    lightningAvgDistKm: at(a, 5),
    batteryV: at(a, 6),
    reportIntervalMin: at(a, 7),
  };
}

function nameObsSky(a: Num[]): ObsSkyRecord {
  return {
    epoch: at(a, 0),
    illuminanceLx: at(a, 1),
    uvIndex: at(a, 2),
    rainMm: at(a, 3),
    windLullMs: at(a, 4),
    windAvgMs: at(a, 5),
    windGustMs: at(a, 6),
    windDirDeg: at(a, 7),
    batteryV: at(a, 8),
    reportIntervalMin: at(a, 9),
    solarWm2: at(a, 10),
    localDayRainMm: at(a, 11),
    precipType: at(a, 12),
    windSampleIntervalS: at(a, 13),
  };
}

function header(o: Record<string, unknown>): Header {
  return {
    serialNumber: optString(o.serial_number),
    hubSerial: optString(o.hub_sn),
    deviceId: optNum(o.device_id),
  };
}

/**
 * Parses one datagram (or websocket text frame). Returns null, never throws,
 * for malformed JSON, an unknown `type` or a wrong shape.
 */
export function parseTempestDatagram(text: string): TempestMessage | null {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return null;
  }
  return parseTempestMessage(raw);
}

/** As `parseTempestDatagram`, for an already decoded JSON value. */
export function parseTempestMessage(raw: unknown): TempestMessage | null {
  if (!isRecord(raw) || typeof raw.type !== 'string') return null;
  const h = header(raw);
  switch (raw.type) {
    case 'obs_st': {
      const obs = records(raw.obs, OBS_ST_UDP_LENGTH, nameObsSt);
      return obs && { type: 'obs_st', ...h, firmwareRevision: optFirmware(raw.firmware_revision), obs };
    }
    case 'obs_air': {
      const obs = records(raw.obs, 8, nameObsAir);
      return obs && { type: 'obs_air', ...h, firmwareRevision: optFirmware(raw.firmware_revision), obs };
    }
    case 'obs_sky': {
      const obs = records(raw.obs, 14, nameObsSky);
      return obs && { type: 'obs_sky', ...h, firmwareRevision: optFirmware(raw.firmware_revision), obs };
    }
    case 'rapid_wind': {
      const ob = numArray(raw.ob, 3);
      return ob && { type: 'rapid_wind', ...h, epoch: at(ob, 0), speedMs: at(ob, 1), dirDeg: at(ob, 2) };
    }
    case 'evt_strike': {
      const evt = numArray(raw.evt, 3);
      return (
        evt && { type: 'evt_strike', ...h, epoch: at(evt, 0), distanceKm: at(evt, 1), energy: at(evt, 2) }
      );
    }
    case 'evt_precip': {
      const evt = numArray(raw.evt, 1);
      return evt && { type: 'evt_precip', ...h, epoch: at(evt, 0) };
    }
    case 'hub_status': {
      const serial = optString(raw.serial_number);
      if (!serial) return null;
      const radio = raw.radio_stats === undefined ? null : numArray(raw.radio_stats, 0);
      return {
        type: 'hub_status',
        serialNumber: serial,
        hubSerial: serial,
        deviceId: h.deviceId,
        firmwareRevision: optFirmware(raw.firmware_revision),
        uptimeS: optNum(raw.uptime),
        rssiDbm: optNum(raw.rssi),
        epoch: optNum(raw.timestamp),
        resetFlags:
          typeof raw.reset_flags === 'string'
            ? raw.reset_flags
                .split(',')
                .map((f) => f.trim())
                .filter((f) => f !== '')
            : [],
        seq: optNum(raw.seq),
        radioStats: radio,
      };
    }
    case 'device_status': {
      const serial = optString(raw.serial_number);
      if (!serial) return null;
      return {
        type: 'device_status',
        ...h,
        serialNumber: serial,
        epoch: optNum(raw.timestamp),
        uptimeS: optNum(raw.uptime),
        voltage: optNum(raw.voltage),
        firmwareRevision: optFirmware(raw.firmware_revision),
        rssiDbm: optNum(raw.rssi),
        hubRssiDbm: optNum(raw.hub_rssi),
        sensorStatus: optNum(raw.sensor_status),
        debug: isNum(raw.debug) ? raw.debug !== 0 : null,
      };
    }
    default:
      return null;
  }
}

// ---------------------------------------------------------------- decoding status

/** sensor_status bits (v72+ table plus the v171 power booster bits). Other bits are undocumented and ignored. */
export const SENSOR_STATUS_BITS: ReadonlyArray<readonly [number, string]> = [
  [0x00000001, 'lightning failed'],
  [0x00000002, 'lightning noise'],
  [0x00000004, 'lightning disturber'],
  [0x00000008, 'pressure failed'],
  [0x00000010, 'temperature failed'],
  [0x00000020, 'rh failed'],
  [0x00000040, 'wind failed'],
  [0x00000080, 'precip failed'],
  [0x00000100, 'light/uv failed'],
  [0x00008000, 'power booster depleted'],
  [0x00010000, 'power booster shore power'],
];

export const SENSOR_STATUS_KNOWN_MASK = SENSOR_STATUS_BITS.reduce((mask, [bit]) => mask | bit, 0);

/** The documented conditions set in a sensor_status value; [] means sensors OK. */
export function decodeSensorStatus(status: number): string[] {
  // sensor_status fits in 32 bits; `>>> 0` keeps bitwise math unsigned.
  const known = (status >>> 0) & SENSOR_STATUS_KNOWN_MASK;
  return SENSOR_STATUS_BITS.filter(([bit]) => (known & bit) !== 0).map(([, label]) => label);
}

const RESET_FLAGS: Record<string, string> = {
  BOR: 'brownout',
  PIN: 'pin reset',
  POR: 'power reset',
  SFT: 'software reset',
  WDG: 'watchdog',
  WWD: 'window watchdog',
  LPW: 'low-power reset',
};

const RADIO_STATUS: Record<number, string> = { 0: 'off', 1: 'on', 3: 'active', 7: 'BLE connected' };

export function describeResetFlags(flags: readonly string[]): string {
  return flags.map((f) => (RESET_FLAGS[f] ? `${f} (${RESET_FLAGS[f]})` : f)).join(', ');
}

// ---------------------------------------------------------------- conversion

/** The fields a Tempest source (UDP or websocket) provides, the time-dependent ones included. */
export const TEMPEST_PROVIDES: readonly WeatherField[] = [
  'air_temp_f',
  'rh_pct',
  'pressure_inhg',
  'wind_lull_mph',
  'wind_avg_mph',
  'wind_gust_mph',
  'wind_dir_deg',
  'rapid_wind_mph',
  'rapid_wind_dir',
  'illuminance_lx',
  'uv_index',
  'solar_w_m2',
  'rain_in_last_min',
  'rain_in_today',
  'rain_intensity_in_hr',
  'precip_type',
  'lightning_count_last_min',
  'lightning_strikes_last_hour',
  'lightning_avg_dist_mi',
  'battery_v',
];

const SENSORS_BY_PREFIX: Record<string, { model: string; sensors: WeatherField[] }> = {
  ST: {
    model: 'Tempest',
    // Everything the source provides except the hour's strike count, which the service derives.
    sensors: TEMPEST_PROVIDES.filter((f) => f !== 'lightning_strikes_last_hour'),
  },
  AR: {
    model: 'AIR',
    sensors: ['air_temp_f', 'rh_pct', 'pressure_inhg', 'lightning_count_last_min', 'lightning_avg_dist_mi'],
  },
  SK: {
    model: 'SKY',
    sensors: [
      'wind_lull_mph',
      'wind_avg_mph',
      'wind_gust_mph',
      'wind_dir_deg',
      'rapid_wind_mph',
      'rapid_wind_dir',
      'illuminance_lx',
      'uv_index',
      'solar_w_m2',
      'rain_in_last_min',
      'rain_in_today',
      'rain_intensity_in_hr',
      'precip_type',
    ],
  },
};

function stationModel(serial: string): { model: string | null; sensors: string[] } {
  const found = SENSORS_BY_PREFIX[serial.slice(0, 2).toUpperCase()];
  return found ? { model: found.model, sensors: [...found.sensors] } : { model: null, sensors: [] };
}

/** Device record ids are scoped by source so two sources seeing one hub do not collide. */
export function tempestDeviceId(sourceId: string, serial: string): string {
  return `${sourceId}:${serial}`;
}

class ReadingList {
  readonly list: Reading[] = [];
  constructor(private readonly epoch: number) {}
  /** A null value is no evidence: no reading. */
  add(field: WeatherField, value: Num, conv?: (v: number) => number): void {
    if (value === null) return;
    this.list.push({ field, value: conv ? conv(value) : value, observedEpoch: this.epoch });
  }
  /** An explicit "no value" (the source says there is none). */
  addNull(field: WeatherField): void {
    this.list.push({ field, value: null, observedEpoch: this.epoch });
  }
}

/**
 * Wind direction with a calm wind is the vendor's placeholder 0, not a
 * bearing: it becomes an explicit null instead of "north".
 */
function addWindDir(r: ReadingList, field: WeatherField, dir: Num, speed: Num): void {
  if (dir === null) return;
  if (speed === 0) r.addNull(field);
  else r.add(field, dir);
}

/**
 * Rain over the report interval: the amount, and the rate over the interval
 * (amount x 60 / interval minutes). No interval, no rate.
 */
function addRain(r: ReadingList, rainMm: Num, intervalMin: Num): void {
  r.add('rain_in_last_min', rainMm, convert.mmToIn);
  if (rainMm !== null && intervalMin !== null && intervalMin > 0) {
    r.add('rain_intensity_in_hr', (convert.mmToIn(rainMm) * 60) / intervalMin);
  }
}

/**
 * Strike count over the interval and the average distance. The distance is an
 * explicit null when the interval detected no strikes (the sensor sends 0
 * there, which is not a distance); no reading at all when the count is unknown.
 */
function addLightning(r: ReadingList, count: Num, distKm: Num): void {
  r.add('lightning_count_last_min', count);
  if (count === null) return;
  if (count > 0 && distKm !== null) r.add('lightning_avg_dist_mi', distKm, convert.kmToMi);
  else r.addNull('lightning_avg_dist_mi');
}

function obsStReadings(o: ObsStRecord, epoch: number): Reading[] {
  const r = new ReadingList(epoch);
  r.add('air_temp_f', o.airTempC, convert.cToF);
  r.add('rh_pct', o.rhPct);
  // Station pressure (at the sensor's altitude), not sea-level pressure.
  r.add('pressure_inhg', o.stationPressureMb, convert.hpaToInhg);
  r.add('wind_lull_mph', o.windLullMs, convert.msToMph);
  r.add('wind_avg_mph', o.windAvgMs, convert.msToMph);
  r.add('wind_gust_mph', o.windGustMs, convert.msToMph);
  addWindDir(r, 'wind_dir_deg', o.windDirDeg, o.windAvgMs);
  r.add('illuminance_lx', o.illuminanceLx);
  r.add('uv_index', o.uvIndex);
  r.add('solar_w_m2', o.solarWm2);
  addRain(r, o.rainMm, o.reportIntervalMin);
  r.add('precip_type', o.precipType);
  addLightning(r, o.lightningCount, o.lightningAvgDistKm);
  r.add('battery_v', o.batteryV);
  return r.list;
}

function obsAirReadings(o: ObsAirRecord, epoch: number): Reading[] {
  const r = new ReadingList(epoch);
  r.add('air_temp_f', o.airTempC, convert.cToF);
  r.add('rh_pct', o.rhPct);
  r.add('pressure_inhg', o.stationPressureMb, convert.hpaToInhg);
  addLightning(r, o.lightningCount, o.lightningAvgDistKm);
  return r.list;
}

function obsSkyReadings(o: ObsSkyRecord, epoch: number): Reading[] {
  const r = new ReadingList(epoch);
  r.add('illuminance_lx', o.illuminanceLx);
  r.add('uv_index', o.uvIndex);
  addRain(r, o.rainMm, o.reportIntervalMin);
  r.add('wind_lull_mph', o.windLullMs, convert.msToMph);
  r.add('wind_avg_mph', o.windAvgMs, convert.msToMph);
  r.add('wind_gust_mph', o.windGustMs, convert.msToMph);
  addWindDir(r, 'wind_dir_deg', o.windDirDeg, o.windAvgMs);
  r.add('solar_w_m2', o.solarWm2);
  r.add('precip_type', o.precipType);
  return r.list;
}

function serials(message: TempestMessage): Pick<SourceBatch, 'stationSerial' | 'hubSerial'> {
  const out: Pick<SourceBatch, 'stationSerial' | 'hubSerial'> = {};
  if (message.type !== 'hub_status' && message.serialNumber) out.stationSerial = message.serialNumber;
  if (message.hubSerial) out.hubSerial = message.hubSerial;
  return out;
}

function stationDevice(m: DeviceStatusMessage, sourceId: string): DeviceRecord {
  const { model, sensors } = stationModel(m.serialNumber);
  let note: string | null = null;
  if (m.sensorStatus !== null) {
    const conditions = decodeSensorStatus(m.sensorStatus);
    note = conditions.length === 0 ? 'sensors OK' : conditions.join(', ');
  }
  return {
    id: tempestDeviceId(sourceId, m.serialNumber),
    kind: 'station',
    source_id: sourceId,
    model,
    serial: m.serialNumber,
    firmware: m.firmwareRevision,
    host: null,
    sensors,
    battery_v: m.voltage,
    rssi_dbm: m.rssiDbm,
    last_seen_epoch: m.epoch,
    status_note: note,
  };
}

function hubDevice(m: HubStatusMessage, sourceId: string): DeviceRecord {
  const notes: string[] = [];
  if (m.resetFlags.length > 0) notes.push(`reset flags: ${describeResetFlags(m.resetFlags)}`);
  const radio = m.radioStats?.[3];
  if (radio !== undefined && radio !== null) notes.push(`radio: ${RADIO_STATUS[radio] ?? `status ${radio}`}`);
  return {
    id: tempestDeviceId(sourceId, m.serialNumber),
    kind: 'hub',
    source_id: sourceId,
    model: 'Tempest hub',
    serial: m.serialNumber,
    firmware: m.firmwareRevision,
    host: null,
    sensors: [],
    battery_v: null,
    rssi_dbm: m.rssiDbm,
    last_seen_epoch: m.epoch,
    status_note: notes.length > 0 ? notes.join('; ') : null,
  };
}

/**
 * Converts a parsed message to the batch a source publishes: readings in
 * snapshot units stamped with the message's own epoch (a record without an
 * epoch gives no readings), strike events, device records, serials.
 *
 * Not emitted here: `rain_in_today` (it depends on the current time: the
 * sources serve it from `readingsAt`), `battery_pct` (UDP carries volts only
 * and no honest volts-to-percent curve exists), legacy AIR/SKY `battery_v`
 * (two devices would fight over one field; their volts are in device_status).
 * evt_precip carries nothing a snapshot field holds: serials only.
 */
export function tempestToBatch(message: TempestMessage, sourceId: string): SourceBatch {
  const batch: SourceBatch = { ...serials(message) };
  const readings: Reading[] = [];
  switch (message.type) {
    case 'obs_st':
      for (const o of message.obs) if (o.epoch !== null) readings.push(...obsStReadings(o, o.epoch));
      break;
    case 'obs_air':
      for (const o of message.obs) if (o.epoch !== null) readings.push(...obsAirReadings(o, o.epoch));
      break;
    case 'obs_sky':
      for (const o of message.obs) if (o.epoch !== null) readings.push(...obsSkyReadings(o, o.epoch));
      break;
    case 'rapid_wind':
      if (message.epoch !== null) {
        const r = new ReadingList(message.epoch);
        r.add('rapid_wind_mph', message.speedMs, convert.msToMph);
        addWindDir(r, 'rapid_wind_dir', message.dirDeg, message.speedMs);
        readings.push(...r.list);
      }
      break;
    case 'evt_strike':
      if (message.epoch !== null) {
        const strike: StrikeEvent = {
          epoch: message.epoch,
          distanceMi: message.distanceKm === null ? null : convert.kmToMi(message.distanceKm),
          energy: message.energy,
        };
        batch.strikes = [strike];
      }
      break;
    case 'evt_precip':
      break;
    case 'device_status':
      batch.devices = [stationDevice(message, sourceId)];
      break;
    case 'hub_status':
      batch.devices = [hubDevice(message, sourceId)];
      break;
  }
  if (readings.length > 0) batch.readings = readings;
  return batch;
}

/** Rain per interval, for the local-day accumulator: obs_st and legacy obs_sky. */
export interface IntervalRain {
  epoch: number;
  inches: number | null;
  /** Rain so far on the station's local day (REST/websocket obs_st index 18, obs_sky index 11), inches. */
  localDayInches: number | null;
}

export function intervalRain(message: TempestMessage): IntervalRain[] {
  if (message.type !== 'obs_st' && message.type !== 'obs_sky') return [];
  const out: IntervalRain[] = [];
  for (const o of message.obs) {
    if (o.epoch === null) continue;
    out.push({
      epoch: o.epoch,
      inches: o.rainMm === null ? null : convert.mmToIn(o.rainMm),
      localDayInches: o.localDayRainMm === null ? null : convert.mmToIn(o.localDayRainMm),
    });
  }
  return out;
}

/** Strike counts per interval, for the last-hour tracker: obs_st and legacy obs_air. */
export function intervalLightning(message: TempestMessage): { epoch: number; count: number }[] {
  if (message.type !== 'obs_st' && message.type !== 'obs_air') return [];
  const out: { epoch: number; count: number }[] = [];
  for (const o of message.obs) {
    if (o.epoch !== null && o.lightningCount !== null) out.push({ epoch: o.epoch, count: o.lightningCount });
  }
  return out;
}
