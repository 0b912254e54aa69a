import { convert, type WeatherField } from '../../fields';
import type { SourceBatch } from '../../source';
import {
  BatchCollector,
  EXTRA,
  channelKey,
  splitModelVersion,
  type GatewayInfo,
  type RainGauge,
} from './batch';
import { MISSING_SENTINEL } from './units';

/**
 * Pure parser of the gateway console's "Customized" upload (fixtures:
 * ecowitt-upload.md): the Ecowitt protocol (form-encoded POST, `PASSKEY`) and
 * the Wunderground protocol (GET query, `ID` + `PASSWORD`). Key names carry
 * their units (°F, inHg, mph, in, W/m², km for lightning distance), so values
 * are converted by key. Empty values, "-9999" and other non-numbers are
 * missing: no reading, never 0.
 *
 * - `dateutc` ("YYYY-MM-DD HH:MM:SS", UTC) is the observation time; when it is
 *   absent, "now" or unreadable the receive time is used. A time after the
 *   receive time (a gateway clock running ahead) is clamped to the receive time.
 * - Pressure, rain gauge, leaf wetness and light follow the same decisions as
 *   the LAN parser (livedata.ts): absolute pressure is `pressure_inhg`;
 *   `rain_gauge` 'auto' takes the piezo keys when the body has any.
 * - Wunderground's `baromin` is sea-level pressure by that protocol's
 *   definition, so it only feeds the `pressure_sea_level_inhg` extra; its
 *   `rainin` is the last hour's total, not a rate (`rain_hourly_in` extra).
 */

export type UploadProtocol = 'ecowitt' | 'wunderground';

export interface UploadOptions {
  sourceId: string;
  /** When the body arrived, epoch seconds. */
  receivedEpoch: number;
  rainGauge?: RainGauge;
}

export interface ParsedUpload {
  protocol: UploadProtocol;
  /** `PASSKEY` (Ecowitt) or `PASSWORD` (Wunderground): what identifies the sender. */
  credential: string | null;
  /** Wunderground station `ID`, when sent. */
  stationId: string | null;
  observedEpoch: number;
  batch: SourceBatch;
  /** True when the body carried at least one reading or extra. */
  usable: boolean;
}

/**
 * Decodes `application/x-www-form-urlencoded` text (`+` is a space). The
 * first occurrence of a repeated key wins. A leading `?` (a pasted query
 * string) is ignored.
 */
export function decodeForm(body: string): Record<string, string> {
  const params = new URLSearchParams(body.trim().replace(/^\?/, ''));
  const out: Record<string, string> = {};
  for (const [key, value] of params) {
    if (key !== '' && !Object.prototype.hasOwnProperty.call(out, key)) out[key] = value;
  }
  return out;
}

export function uploadProtocol(fields: Record<string, string>): UploadProtocol {
  return has(fields, 'PASSKEY') || !(has(fields, 'ID') || has(fields, 'PASSWORD'))
    ? 'ecowitt'
    : 'wunderground';
}

/** The sender's credential: PASSKEY, else (Wunderground) PASSWORD; null when neither is there. */
export function uploadCredential(fields: Record<string, string>): string | null {
  for (const key of ['PASSKEY', 'PASSWORD']) {
    const value = has(fields, key) ? fields[key]!.trim() : '';
    if (value !== '') return value;
  }
  return null;
}

function has(fields: Record<string, string>, key: string): boolean {
  return Object.prototype.hasOwnProperty.call(fields, key);
}

/** A whole-string decimal number; placeholders ("", "-9999", "--", "None") are null. */
export function uploadNumber(raw: string | undefined): number | null {
  if (raw === undefined) return null;
  const text = raw.trim();
  if (!/^[-+]?(?:\d+(?:\.\d*)?|\.\d+)$/.test(text)) return null;
  const value = Number(text);
  return Number.isFinite(value) && value > MISSING_SENTINEL ? value : null;
}

/** "2023-05-18 17:47:20" (UTC) -> epoch seconds; null for "now" and anything unreadable. */
export function parseDateUtc(raw: string | undefined): number | null {
  if (raw === undefined) return null;
  const m = /^(\d{4})-(\d{1,2})-(\d{1,2})[ T](\d{1,2}):(\d{1,2}):(\d{1,2})$/.exec(raw.trim());
  if (!m) return null;
  const [year, month, day, hour, minute, second] = m.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (
    year < 2000 ||
    month < 1 ||
    month > 12 ||
    day < 1 ||
    day > 31 ||
    hour > 23 ||
    minute > 59 ||
    second > 59
  ) {
    return null;
  }
  const ms = Date.UTC(year, month - 1, day, hour, minute, second);
  const check = new Date(ms);
  if (check.getUTCDate() !== day) return null;
  return Math.floor(ms / 1000);
}

const pct = (v: number | null): number | null => (v !== null && v >= 0 && v <= 100 ? v : null);
const nonNegative = (v: number | null): number | null => (v !== null && v >= 0 ? v : null);
const degrees = (v: number | null): number | null => (v !== null && v >= 0 && v <= 360 ? v : null);

export function parseUpload(fields: Record<string, string>, options: UploadOptions): ParsedUpload {
  const protocol = uploadProtocol(fields);
  const dated = parseDateUtc(fields.dateutc);
  const observedEpoch = dated === null ? options.receivedEpoch : Math.min(dated, options.receivedEpoch);
  const out = new BatchCollector(observedEpoch);
  const num = (key: string): number | null => uploadNumber(fields[key]);

  if (protocol === 'ecowitt') ecowittFields(out, fields, num, options.rainGauge ?? 'auto');
  else wundergroundFields(out, num);

  const gateway: GatewayInfo = { sourceId: options.sourceId, host: null, ...describeGateway(fields) };
  return {
    protocol,
    credential: uploadCredential(fields),
    stationId: protocol === 'wunderground' && has(fields, 'ID') ? fields.ID!.trim() || null : null,
    observedEpoch,
    batch: out.build(gateway),
    usable: out.hasValues(),
  };
}

/**
 * Consoles send `model=WS2900_V2.01.13` (model and firmware) with a generic
 * `stationtype=EasyWeatherV1.5.9`; gateways send `model=GW2000A` with
 * `stationtype=GW2000A_V3.1.5`. Wunderground senders name `softwaretype`.
 */
function describeGateway(fields: Record<string, string>): { model: string | null; firmware: string | null } {
  const fromModel = splitModelVersion(fields.model ?? '');
  const typeText = (fields.stationtype ?? fields.softwaretype ?? '').trim();
  const fromType = splitModelVersion(typeText);
  // "EasyWeatherV1.5.9" names the upload software, not the hardware: firmware only.
  const typeSplits = fromType.firmware !== null;
  return {
    model: fromModel.model ?? (typeSplits ? fromType.model : null),
    firmware: fromModel.firmware ?? (typeSplits ? fromType.firmware : typeText !== '' ? typeText : null),
  };
}

type Num = (key: string) => number | null;

function ecowittFields(
  out: BatchCollector,
  fields: Record<string, string>,
  num: Num,
  gauge: RainGauge,
): void {
  out.reading('air_temp_f', num('tempf'));
  out.reading('rh_pct', pct(num('humidity')));
  out.reading('pressure_inhg', nonNegative(num('baromabsin')));
  out.extra(EXTRA.pressureSeaLevelInhg, nonNegative(num('baromrelin')), 'Relative (sea-level) pressure');
  out.reading('wind_avg_mph', nonNegative(num('windspeedmph')));
  out.reading('wind_gust_mph', nonNegative(num('windgustmph')));
  out.reading('wind_dir_deg', degrees(num('winddir')));
  out.reading('solar_w_m2', nonNegative(num('solarradiation')));
  out.reading('uv_index', nonNegative(num('uv')));
  out.extra(EXTRA.windAvg10mMph, nonNegative(num('windspdmph_avg10m')), 'Wind speed, 10-min avg');
  out.extra(EXTRA.windDirAvg10mDeg, degrees(num('winddir_avg10m')), 'Wind direction, 10-min avg');
  out.extra(EXTRA.windMaxDayMph, nonNegative(num('maxdailygust')), 'Max gust today');
  out.extra(EXTRA.indoorTempF, num('tempinf'), 'Indoor temperature');
  out.extra(EXTRA.indoorRhPct, pct(num('humidityin')), 'Indoor humidity');

  const piezoPresent = RAIN_KEYS.piezo.some((key) => has(fields, key));
  const keys = gauge === 'piezo' || (gauge === 'auto' && piezoPresent) ? RAIN_KEYS.piezo : RAIN_KEYS.tipping;
  const [rate, day, event, hourly, last24h, week, month, year] = keys.map((key) => nonNegative(num(key)));
  out.reading('rain_intensity_in_hr', rate ?? null);
  out.reading('rain_in_today', day ?? null);
  out.extra(EXTRA.rainEventIn, event ?? null, 'Rain event');
  out.extra(EXTRA.rainHourlyIn, hourly ?? null, 'Rain, last hour');
  out.extra(EXTRA.rain24hIn, last24h ?? null, 'Rain, last 24 h');
  out.extra(EXTRA.rainWeekIn, week ?? null, 'Rain this week');
  out.extra(EXTRA.rainMonthIn, month ?? null, 'Rain this month');
  out.extra(EXTRA.rainYearIn, year ?? null, 'Rain this year');

  channelFields(out, num);

  // WH45 air-quality combo.
  out.extra(EXTRA.co2TempF, num('tf_co2'), 'Air quality sensor temperature');
  out.extra(EXTRA.co2RhPct, pct(num('humi_co2')), 'Air quality sensor humidity');
  out.extra(EXTRA.co2Ppm, nonNegative(num('co2')), 'CO2');
  out.extra(EXTRA.co2Pm25, nonNegative(num('pm25_co2')), 'PM2.5 (air quality sensor)');
  out.extra(EXTRA.co2Pm10, nonNegative(num('pm10_co2')), 'PM10 (air quality sensor)');

  // WH57 lightning: strikes today, last distance (km), last strike (epoch s).
  const count = num('lightning_num');
  if (count !== null && Number.isInteger(count) && count >= 0) {
    out.extra(EXTRA.lightningCountToday, count, 'Lightning strikes today');
  }
  const km = nonNegative(num('lightning'));
  const distance = km === null ? null : convert.kmToMi(km);
  out.extra(EXTRA.lightningDistanceMi, distance, 'Last strike distance');
  const strikeEpoch = num('lightning_time');
  if (strikeEpoch !== null && Number.isInteger(strikeEpoch) && strikeEpoch > 946684800) {
    if (strikeEpoch <= out.observedEpoch)
      out.strike({ epoch: strikeEpoch, distanceMi: distance, energy: null });
  }

  for (const [form, sensor, what] of STATION_BATTERIES)
    out.extra(`${EXTRA.battery}:${sensor}`, num(form), what);
  out.extra(`${EXTRA.battery}:ws90cap`, nonNegative(num('ws90cap_volt')), 'WS90 supercapacitor (V)');
}

/** Rate, day, event, hour, 24 h, week, month, year. */
const RAIN_KEYS = {
  tipping: [
    'rainratein',
    'dailyrainin',
    'eventrainin',
    'hourlyrainin',
    'last24hrainin',
    'weeklyrainin',
    'monthlyrainin',
    'yearlyrainin',
  ],
  piezo: [
    'rrain_piezo',
    'drain_piezo',
    'erain_piezo',
    'hrain_piezo',
    'last24hrain_piezo',
    'wrain_piezo',
    'mrain_piezo',
    'yrain_piezo',
  ],
};

/** Form key, sensor name in the extra key, label (with the encoding per the fixture table). */
const STATION_BATTERIES: [string, string, string][] = [
  ['wh65batt', 'wh65', 'WH65 array battery (0 = OK, 1 = low)'],
  ['wh25batt', 'wh25', 'WH25 indoor sensor battery (0 = OK, 1 = low)'],
  ['wh26batt', 'wh26', 'WH26 outdoor sensor battery (0 = OK, 1 = low)'],
  ['wh40batt', 'wh40', 'WH40 rain gauge battery (V)'],
  ['wh68batt', 'wh68', 'WS68 battery (V)'],
  ['wh80batt', 'wh80', 'WS80 battery (V)'],
  ['wh90batt', 'wh90', 'WS90 battery (V)'],
  ['wh85batt', 'wh85', 'WS85 battery (V)'],
  ['wh57batt', 'wh57', 'WH57 lightning sensor battery (0-5 bars)'],
  ['co2_batt', 'wh45', 'WH45 air quality sensor battery (0-5)'],
  ['console_batt', 'console', 'Console battery (V)'],
];

/** Multi-channel sensors: form key of channel N, extra key, label, value check. */
const CHANNEL_FIELDS: {
  form: (n: number) => string;
  channels: number;
  key: string;
  label: (n: number) => string;
  check?: (v: number | null) => number | null;
}[] = [
  {
    form: (n) => `soilmoisture${n}`,
    channels: 16,
    key: EXTRA.soilMoisturePct,
    label: (n) => `Soil moisture CH${n}`,
    check: pct,
  },
  {
    form: (n) => `soilbatt${n}`,
    channels: 16,
    key: 'battery:wh51',
    label: (n) => `Soil moisture CH${n} battery (V)`,
  },
  { form: (n) => `temp${n}f`, channels: 8, key: EXTRA.tempF, label: (n) => `Temperature CH${n}` },
  { form: (n) => `humidity${n}`, channels: 8, key: EXTRA.rhPct, label: (n) => `Humidity CH${n}`, check: pct },
  {
    form: (n) => `batt${n}`,
    channels: 8,
    key: 'battery:wh31',
    label: (n) => `Thermo-hygrometer CH${n} battery (0 = OK, 1 = low)`,
  },
  { form: (n) => `tf_ch${n}`, channels: 8, key: EXTRA.probeTempF, label: (n) => `Probe temperature CH${n}` },
  {
    form: (n) => `tf_batt${n}`,
    channels: 8,
    key: 'battery:wh34',
    label: (n) => `Temperature probe CH${n} battery (V)`,
  },
  {
    form: (n) => `leafwetness_ch${n}`,
    channels: 8,
    key: EXTRA.leafWetnessPct,
    label: (n) => `Leaf wetness CH${n}`,
    check: pct,
  },
  {
    form: (n) => `leaf_batt${n}`,
    channels: 8,
    key: 'battery:wh35',
    label: (n) => `Leaf wetness CH${n} battery (V)`,
  },
  { form: (n) => `leak_ch${n}`, channels: 4, key: EXTRA.leak, label: (n) => `Leak CH${n}` },
  {
    form: (n) => `leakbatt${n}`,
    channels: 4,
    key: 'battery:wh55',
    label: (n) => `Leak sensor CH${n} battery (0-5)`,
  },
  {
    form: (n) => `pm25_ch${n}`,
    channels: 4,
    key: EXTRA.pm25,
    label: (n) => `PM2.5 CH${n}`,
    check: nonNegative,
  },
  {
    form: (n) => `pm25batt${n}`,
    channels: 4,
    key: 'battery:wh41',
    label: (n) => `PM2.5 CH${n} battery (0-5)`,
  },
];

/**
 * The Ecowitt protocol's channel keys, walked by channel so each sensor
 * family comes out in channel order whatever the body's key order. The lowest
 * leaf-wetness channel with a value is the snapshot's `leaf_wetness_pct`.
 */
function channelFields(out: BatchCollector, num: Num): void {
  let firstLeaf: number | null = null;
  for (const spec of CHANNEL_FIELDS) {
    for (let n = 1; n <= spec.channels; n += 1) {
      const raw = num(spec.form(n));
      const value = spec.check ? spec.check(raw) : raw;
      out.extra(channelKey(spec.key, n), value, spec.label(n));
      if (spec.key === EXTRA.leafWetnessPct && value !== null && firstLeaf === null) firstLeaf = value;
    }
  }
  out.reading('leaf_wetness_pct', firstLeaf);
}

function wundergroundFields(out: BatchCollector, num: Num): void {
  const fields: [string, WeatherField, (v: number | null) => number | null][] = [
    ['tempf', 'air_temp_f', (v) => v],
    ['humidity', 'rh_pct', pct],
    ['windspeedmph', 'wind_avg_mph', nonNegative],
    ['windgustmph', 'wind_gust_mph', nonNegative],
    ['winddir', 'wind_dir_deg', degrees],
    ['dailyrainin', 'rain_in_today', nonNegative],
    ['solarradiation', 'solar_w_m2', nonNegative],
    ['UV', 'uv_index', nonNegative],
  ];
  for (const [key, field, check] of fields) out.reading(field, check(num(key)));
  out.extra(EXTRA.pressureSeaLevelInhg, nonNegative(num('baromin')), 'Sea-level pressure');
  out.extra(EXTRA.rainHourlyIn, nonNegative(num('rainin')), 'Rain, last hour');
  out.extra(EXTRA.rainWeekIn, nonNegative(num('weeklyrainin')), 'Rain this week');
  out.extra(EXTRA.rainMonthIn, nonNegative(num('monthlyrainin')), 'Rain this month');
  out.extra(EXTRA.rainYearIn, nonNegative(num('yearlyrainin')), 'Rain this year');
  out.extra(EXTRA.indoorTempF, num('indoortempf'), 'Indoor temperature');
  out.extra(EXTRA.indoorRhPct, pct(num('indoorhumidity')), 'Indoor humidity');
  // soilmoisture, soilmoisture2..4 and soiltempf, soiltemp2f..4f: channel 1 has no digit.
  for (let n = 1; n <= 4; n += 1) {
    const suffix = n === 1 ? '' : String(n);
    out.extra(
      channelKey(EXTRA.soilMoisturePct, n),
      pct(num(`soilmoisture${suffix}`)),
      `Soil moisture CH${n}`,
    );
    out.extra(channelKey(EXTRA.soilTempF, n), num(`soiltemp${suffix}f`), `Soil temperature CH${n}`);
  }
  out.extra(`${EXTRA.battery}:station`, num('lowbatt'), 'Station battery (0 = OK, 1 = low)');
}
