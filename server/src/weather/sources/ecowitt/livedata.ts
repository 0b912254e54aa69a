import { LocalTime } from '../../../core/tz/local-time';
import { timeZone } from '../../../core/tz/time-zone';
import type { SourceBatch } from '../../source';
import {
  BatchCollector,
  EXTRA,
  channelKey,
  splitModelVersion,
  type GatewayInfo,
  type RainGauge,
} from './batch';
import {
  depthIn,
  directionDeg,
  distanceMi,
  light,
  parseMeasure,
  percent,
  plain,
  pressureInhg,
  rateInHr,
  speedMph,
  temperatureF,
  uvIndex,
  type Measure,
} from './units';
import { compareText } from '../../../core/compare';

/**
 * Pure parser of an Ecowitt gateway's `GET /get_livedata_info` answer
 * (fixtures: ecowitt-local-api.md). Decisions:
 *
 * - Units are read from each value (suffix or `unit` key), never assumed.
 * - `pressure_inhg` is the ABSOLUTE (station) pressure, `wh25.abs` (or item
 *   0x08): station pressure is what a Tempest reports, so the field means one
 *   thing whichever station feeds it. The relative (sea-level) pressure is the
 *   extra `pressure_sea_level_inhg`; there is no fallback from one to the other.
 * - Rain comes from one gauge per message: `rain_gauge` 'piezo' or 'tipping',
 *   or 'auto' = the piezo block when the gateway lists one, else the tipping
 *   block. Day rain (0x10) is `rain_in_today`, rate (0x0E) `rain_intensity_in_hr`.
 * - Derived values the gateway also sends (dew point, feels like, wind chill,
 *   heat index, VPD) are skipped: the weather core derives them from live inputs.
 * - The light item is `solar_w_m2` or `illuminance_lx` by its unit, never both.
 * - The lowest WH35 leaf-wetness channel is the snapshot's `leaf_wetness_pct`.
 * - The API carries no observation time: `observedEpoch` is the poll time.
 * - Battery values are kept as the gateway's raw code (`battery:<sensor>`);
 *   their encoding differs between firmware versions.
 * - The lightning block's last strike becomes a StrikeEvent; its timestamp
 *   ("MM/DD/YYYY HH: MM: SS", gateway local time) is read in the deployment's
 *   time zone. The day count and distance go out as extras for `LightningState`.
 */

export interface LivedataOptions {
  sourceId: string;
  /** Poll time, epoch seconds. */
  observedEpoch: number;
  /** IANA zone of the deployment; the lightning timestamp is gateway local time. */
  timezone: string;
  rainGauge?: RainGauge;
  host?: string | null;
  version?: GatewayVersion | null;
}

export interface GatewayVersion {
  model: string | null;
  firmware: string | null;
}

export class LivedataUnparseable extends Error {}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every block is documented as an array; a bare object is accepted as a one-entry block. */
function entries(value: unknown): Json[] {
  if (Array.isArray(value)) return value.filter(isObject);
  return isObject(value) ? [value] : [];
}

/** "0x0b" and "0x0B" name the same item; decimal ids ("3") stay as they are. */
function normaliseId(id: unknown): string | null {
  if (typeof id !== 'string' && typeof id !== 'number') return null;
  const text = String(id).trim();
  return /^0x/i.test(text) ? `0x${text.slice(2).toUpperCase()}` : text;
}

function itemsById(block: unknown): Map<string, Json> {
  const map = new Map<string, Json>();
  for (const item of entries(block)) {
    const id = normaliseId(item.id);
    if (id !== null && !map.has(id)) map.set(id, item);
  }
  return map;
}

function itemMeasure(items: Map<string, Json>, id: string): Measure | null {
  const item = items.get(id);
  return item ? parseMeasure(item.val, item.unit) : null;
}

const RAIN_IDS = ['0x0D', '0x0E', '0x0F', '0x10', '0x11', '0x12', '0x13', '0x14', '0x7C'];

function str(value: unknown): string {
  return typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : '';
}

function label(name: unknown, fallback: string): string {
  const given = str(name);
  return given !== '' ? given : fallback;
}

export function parseLivedata(body: unknown, options: LivedataOptions): SourceBatch {
  if (!isObject(body)) throw new LivedataUnparseable('livedata is not a JSON object');
  const out = new BatchCollector(options.observedEpoch);
  const common = itemsById(body.common_list);

  // Outdoor array.
  out.reading('air_temp_f', temperatureF(itemMeasure(common, '0x02')));
  out.reading('rh_pct', percent(itemMeasure(common, '0x07')));
  out.reading('wind_avg_mph', speedMph(itemMeasure(common, '0x0B')));
  out.reading('wind_gust_mph', speedMph(itemMeasure(common, '0x0C')));
  out.reading('wind_dir_deg', directionDeg(itemMeasure(common, '0x0A')));
  const lit = light(itemMeasure(common, '0x15'));
  if (lit) out.reading(lit.field, lit.value);
  out.reading('uv_index', uvIndex(itemMeasure(common, '0x17')));
  out.extra(EXTRA.windMaxDayMph, speedMph(itemMeasure(common, '0x19')), 'Max wind today');
  out.extra(EXTRA.windDirAvg10mDeg, directionDeg(itemMeasure(common, '0x6D')), 'Wind direction, 10-min avg');

  // Indoor T/H/pressure (WH25 block, else the common items).
  const wh25 = entries(body.wh25)[0];
  const absolute = (wh25 ? parseMeasure(wh25.abs) : null) ?? itemMeasure(common, '0x08');
  const relative = (wh25 ? parseMeasure(wh25.rel) : null) ?? itemMeasure(common, '0x09');
  out.reading('pressure_inhg', pressureInhg(absolute));
  out.extra(EXTRA.pressureSeaLevelInhg, pressureInhg(relative), 'Relative (sea-level) pressure');
  const indoorTemp = (wh25 ? parseMeasure(wh25.intemp, wh25.unit) : null) ?? itemMeasure(common, '0x01');
  const indoorRh = (wh25 ? parseMeasure(wh25.inhumi) : null) ?? itemMeasure(common, '0x06');
  out.extra(EXTRA.indoorTempF, temperatureF(indoorTemp), 'Indoor temperature');
  out.extra(EXTRA.indoorRhPct, percent(indoorRh), 'Indoor humidity');
  if (wh25) battery(out, 'wh25', wh25.battery, 'Indoor sensor');

  rain(out, body, common, options.rainGauge ?? 'auto');
  lightning(out, body, options);
  channels(out, body);

  const gateway: GatewayInfo = {
    sourceId: options.sourceId,
    host: options.host ?? null,
    model: options.version?.model ?? null,
    firmware: options.version?.firmware ?? null,
  };
  return out.build(gateway);
}

function battery(out: BatchCollector, sensor: string, raw: unknown, what: string): void {
  out.extra(`${EXTRA.battery}:${sensor}`, plain(parseMeasure(raw)), `${what} battery (gateway code)`);
}

function rain(out: BatchCollector, body: Json, common: Map<string, Json>, gauge: RainGauge): void {
  const tippingBlock = entries(body.rain);
  const piezoBlock = entries(body.piezoRain);
  // Older firmware lists tipping-bucket items in common_list.
  const tipping = tippingBlock.length > 0 ? itemsById(body.rain) : pick(common, RAIN_IDS);
  const piezo = itemsById(body.piezoRain);
  batteryOfBlock(out, tippingBlock, 'rain', 'Rain gauge');
  batteryOfBlock(out, piezoBlock, 'rain_piezo', 'Piezo rain gauge');

  const chosen = gauge === 'piezo' ? piezo : gauge === 'tipping' ? tipping : piezo.size > 0 ? piezo : tipping;
  out.reading('rain_in_today', depthIn(itemMeasure(chosen, '0x10')));
  out.reading('rain_intensity_in_hr', rateInHr(itemMeasure(chosen, '0x0E')));
  out.extra(EXTRA.rainEventIn, depthIn(itemMeasure(chosen, '0x0D')), 'Rain event');
  out.extra(EXTRA.rain24hIn, depthIn(itemMeasure(chosen, '0x7C')), 'Rain, last 24 h');
  out.extra(EXTRA.rainWeekIn, depthIn(itemMeasure(chosen, '0x11')), 'Rain this week');
  out.extra(EXTRA.rainMonthIn, depthIn(itemMeasure(chosen, '0x12')), 'Rain this month');
  out.extra(EXTRA.rainYearIn, depthIn(itemMeasure(chosen, '0x13')), 'Rain this year');
}

function pick(items: Map<string, Json>, ids: string[]): Map<string, Json> {
  const out = new Map<string, Json>();
  for (const id of ids) {
    const item = items.get(id);
    if (item) out.set(id, item);
  }
  return out;
}

/** The rain battery rides on one of the block's items (the last one in captures). */
function batteryOfBlock(out: BatchCollector, block: Json[], sensor: string, what: string): void {
  const carrier = block.find((item) => item.battery !== undefined);
  if (carrier) battery(out, sensor, carrier.battery, what);
}

function lightning(out: BatchCollector, body: Json, options: LivedataOptions): void {
  const block = entries(body.lightning)[0];
  if (!block) return;
  const count = parseMeasure(block.count);
  if (count && count.unit === '' && Number.isInteger(count.value) && count.value >= 0) {
    out.extra(EXTRA.lightningCountToday, count.value, 'Lightning strikes today');
  }
  const distance = distanceMi(parseMeasure(block.distance));
  out.extra(EXTRA.lightningDistanceMi, distance, 'Last strike distance');
  const epoch = parseLightningTimestamp(block.timestamp, options.timezone);
  if (epoch !== null && epoch <= options.observedEpoch) {
    out.strike({ epoch, distanceMi: distance, energy: null });
  }
  battery(out, 'wh57', block.battery, 'Lightning sensor');
}

/**
 * "07/15/2024 20: 46: 42" (MM/DD/YYYY, stray spaces after the colons) in
 * the gateway's local time, read in `timezone`. Placeholders give null.
 */
export function parseLightningTimestamp(raw: unknown, timezone: string): number | null {
  if (typeof raw !== 'string') return null;
  const m = /^(\d{1,2})\/(\d{1,2})\/(\d{4})\s+(\d{1,2})\s*:\s*(\d{1,2})\s*:\s*(\d{1,2})$/.exec(raw.trim());
  if (!m) return null;
  const [month, day, year, hour, minute, second] = m.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (year < 2000) return null;
  const at = LocalTime.fromFields({ year, month, day, hour, minute, second }, timeZone(timezone));
  return at.isValid ? Math.floor(at.seconds) : null;
}

function channels(out: BatchCollector, body: Json): void {
  for (const ch of entries(body.ch_soil)) {
    const n = str(ch.channel);
    if (n === '') continue;
    const name = label(ch.name, `Soil moisture CH${n}`);
    out.extra(channelKey(EXTRA.soilMoisturePct, n), percent(parseMeasure(ch.humidity)), name);
    battery(out, `wh51:${n}`, ch.battery, `Soil moisture CH${n}`);
  }
  for (const ch of entries(body.ch_aisle)) {
    const n = str(ch.channel);
    if (n === '') continue;
    const name = str(ch.name);
    const temp = temperatureF(parseMeasure(ch.temp, ch.unit));
    out.extra(channelKey(EXTRA.tempF, n), temp, name !== '' ? `${name} temperature` : `Temperature CH${n}`);
    const rh = percent(parseMeasure(ch.humidity));
    out.extra(channelKey(EXTRA.rhPct, n), rh, name !== '' ? `${name} humidity` : `Humidity CH${n}`);
    battery(out, `wh31:${n}`, ch.battery, `Thermo-hygrometer CH${n}`);
  }
  for (const ch of entries(body.ch_temp)) {
    const n = str(ch.channel);
    if (n === '') continue;
    const temp = temperatureF(parseMeasure(ch.temp, ch.unit));
    out.extra(channelKey(EXTRA.probeTempF, n), temp, label(ch.name, `Probe temperature CH${n}`));
    battery(out, `wh34:${n}`, ch.battery, `Temperature probe CH${n}`);
  }
  const leaves = entries(body.ch_leaf)
    .map((ch) => ({ ch, n: str(ch.channel), value: percent(parseMeasure(ch.humidity)) }))
    .filter((leaf) => leaf.n !== '');
  for (const { ch, n, value } of leaves) {
    out.extra(channelKey(EXTRA.leafWetnessPct, n), value, label(ch.name, `Leaf wetness CH${n}`));
    battery(out, `wh35:${n}`, ch.battery, `Leaf wetness CH${n}`);
  }
  const firstLeaf = leaves
    .filter((leaf) => leaf.value !== null)
    .sort((a, b) => Number(a.n) - Number(b.n) || compareText(a.n, b.n))[0];
  if (firstLeaf) out.reading('leaf_wetness_pct', firstLeaf.value);
  for (const ch of entries(body.ch_leak)) {
    const n = str(ch.channel);
    if (n === '') continue;
    out.extra(channelKey(EXTRA.leak, n), leakState(ch.status), label(ch.name, `Leak CH${n}`));
    battery(out, `wh55:${n}`, ch.battery, `Leak sensor CH${n}`);
  }
  for (const ch of entries(body.ch_pm25)) {
    const n = str(ch.channel);
    if (n === '') continue;
    out.extra(channelKey(EXTRA.pm25, n), plain(parseMeasure(ch.PM25)), label(ch.name, `PM2.5 CH${n}`));
    battery(out, `wh41:${n}`, ch.battery, `PM2.5 CH${n}`);
  }
  const co2 = entries(body.co2)[0];
  if (co2) {
    out.extra(
      EXTRA.co2TempF,
      temperatureF(parseMeasure(co2.temp, co2.unit)),
      'Air quality sensor temperature',
    );
    out.extra(EXTRA.co2RhPct, percent(parseMeasure(co2.humidity)), 'Air quality sensor humidity');
    out.extra(EXTRA.co2Ppm, plain(parseMeasure(co2.CO2)), 'CO2');
    out.extra(EXTRA.co2Pm25, plain(parseMeasure(co2.PM25)), 'PM2.5 (air quality sensor)');
    out.extra(EXTRA.co2Pm10, plain(parseMeasure(co2.PM10)), 'PM10 (air quality sensor)');
    battery(out, 'wh45', co2.battery, 'Air quality sensor');
  }
}

/** 0 = dry, 1 = leak; anything else is no reading. */
function leakState(status: unknown): number | null {
  const text = str(status).toLowerCase();
  if (text === 'normal' || text === '0') return 0;
  if (text === 'leak' || text === 'leaking' || text === '1') return 1;
  return null;
}

/** `GET /get_version`: `{"version": "Version: GW1100A_V2.3.4", ...}`. Null when unreadable. */
export function parseVersion(body: unknown): GatewayVersion | null {
  if (!isObject(body) || typeof body.version !== 'string') return null;
  const text = body.version.replace(/^\s*version\s*:\s*/i, '');
  const split = splitModelVersion(text);
  return split.model === null && split.firmware === null ? null : split;
}
