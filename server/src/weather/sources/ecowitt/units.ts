import { convert } from '../../fields';

/**
 * Value strings of the Ecowitt LAN API. Every value is a string; some carry
 * their unit as a suffix ("9.00 km/h", "57%", "0.0 mm/Hr"), others name it in
 * a separate `unit` key ("23.5" + "C"). The unit follows the gateway's display
 * settings, so it is always read, never assumed: a value whose unit is missing
 * or unknown gives no reading at all.
 */

export interface Measure {
  value: number;
  /** Normalised unit (see `normaliseUnit`); '' when the string names none. */
  unit: string;
}

const NUMBER_PREFIX = /^([-+]?(?:\d+(?:\.\d*)?|\.\d+))\s*(.*)$/;

/** Ecowitt and Wunderground senders use -9999 for "no sensor value". */
export const MISSING_SENTINEL = -9999;

/**
 * Splits "9.00 km/h" into 9 and "km/h". Placeholders such as "--.-", "None"
 * or "-9999" are missing values (null), never 0.
 */
export function parseMeasure(raw: unknown, unitHint?: unknown): Measure | null {
  let text: string;
  if (typeof raw === 'number') {
    if (!Number.isFinite(raw)) return null;
    text = String(raw);
  } else if (typeof raw === 'string') {
    text = raw.trim();
  } else {
    return null;
  }
  const match = NUMBER_PREFIX.exec(text);
  if (!match) return null;
  const value = Number(match[1]);
  if (!Number.isFinite(value) || value <= MISSING_SENTINEL) return null;
  const suffix = (match[2] ?? '').trim();
  const unit = suffix !== '' ? suffix : typeof unitHint === 'string' ? unitHint : '';
  return { value, unit: normaliseUnit(unit) };
}

const UNIT_ALIASES: Record<string, string> = {
  c: 'c',
  f: 'f',
  hpa: 'hpa',
  mbar: 'hpa',
  mb: 'hpa',
  kpa: 'kpa',
  inhg: 'inhg',
  mmhg: 'mmhg',
  'm/s': 'm/s',
  mps: 'm/s',
  'km/h': 'km/h',
  kmh: 'km/h',
  kph: 'km/h',
  mph: 'mph',
  knots: 'kn',
  knot: 'kn',
  kn: 'kn',
  kt: 'kn',
  kts: 'kn',
  'ft/s': 'ft/s',
  fps: 'ft/s',
  bft: 'bft',
  mm: 'mm',
  in: 'in',
  inch: 'in',
  inches: 'in',
  'mm/hr': 'mm/h',
  'mm/h': 'mm/h',
  'in/hr': 'in/h',
  'in/h': 'in/h',
  km: 'km',
  mi: 'mi',
  mile: 'mi',
  miles: 'mi',
  'w/m2': 'w/m2',
  'w/m^2': 'w/m2',
  wm2: 'w/m2',
  klux: 'klux',
  kilolux: 'klux',
  lux: 'lux',
  lx: 'lux',
  kfc: 'kfc',
  fc: 'fc',
  '%': '%',
  v: 'v',
  deg: 'deg',
  degrees: 'deg',
};

/** Lower-case, no spaces, degree signs dropped; known aliases folded to one spelling. */
export function normaliseUnit(unit: string): string {
  const folded = unit
    .trim()
    .replace(/℃/g, 'c')
    .replace(/℉/g, 'f')
    .replace(/[°º]/g, '')
    .replace(/²/g, '2')
    .replace(/\s+/g, '')
    .toLowerCase();
  return UNIT_ALIASES[folded] ?? folded;
}

/** Degrees Fahrenheit, from a value in C or F; null when the unit is not stated. */
export function temperatureF(m: Measure | null): number | null {
  if (!m) return null;
  if (m.unit === 'f') return m.value;
  if (m.unit === 'c') return convert.cToF(m.value);
  return null;
}

/** Percent (humidity, soil moisture, leaf wetness): "%" or bare. */
export function percent(m: Measure | null): number | null {
  if (!m || (m.unit !== '%' && m.unit !== '')) return null;
  return m.value >= 0 && m.value <= 100 ? m.value : null;
}

export function pressureInhg(m: Measure | null): number | null {
  if (!m) return null;
  switch (m.unit) {
    case 'inhg':
      return m.value;
    case 'hpa':
      return convert.hpaToInhg(m.value);
    case 'kpa':
      return convert.hpaToInhg(m.value * 10);
    case 'mmhg':
      return m.value / 25.4;
    default:
      return null;
  }
}

/** Miles per hour. Beaufort is a scale, not a speed, and gives no reading. */
export function speedMph(m: Measure | null): number | null {
  if (!m) return null;
  switch (m.unit) {
    case 'mph':
      return m.value;
    case 'm/s':
      return convert.msToMph(m.value);
    case 'km/h':
      return convert.kmhToMph(m.value);
    case 'kn':
      return m.value * 1.150779448;
    case 'ft/s':
      return m.value * (3600 / 5280);
    default:
      return null;
  }
}

/** Compass degrees: bare or "deg", 0..360. */
export function directionDeg(m: Measure | null): number | null {
  if (!m || (m.unit !== '' && m.unit !== 'deg')) return null;
  return m.value >= 0 && m.value <= 360 ? m.value : null;
}

/** Rain depth in inches. */
export function depthIn(m: Measure | null): number | null {
  if (!m || m.value < 0) return null;
  if (m.unit === 'in') return m.value;
  if (m.unit === 'mm') return convert.mmToIn(m.value);
  return null;
}

/** Rain rate in inches per hour. */
export function rateInHr(m: Measure | null): number | null {
  if (!m || m.value < 0) return null;
  if (m.unit === 'in/h') return m.value;
  if (m.unit === 'mm/h') return convert.mmToIn(m.value);
  return null;
}

export function distanceMi(m: Measure | null): number | null {
  if (!m || m.value < 0) return null;
  if (m.unit === 'mi') return m.value;
  if (m.unit === 'km') return convert.kmToMi(m.value);
  return null;
}

/** UV index: a bare number. */
export function uvIndex(m: Measure | null): number | null {
  if (!m || m.unit !== '' || m.value < 0) return null;
  return m.value;
}

/** A bare number (counts, ppm, µg/m³, battery codes). */
export function plain(m: Measure | null): number | null {
  return m ? m.value : null;
}

const LUX_PER_FOOT_CANDLE = 10.763910417;

/**
 * The light item reads as irradiance (W/m2) or illuminance (klux, lux, kfc)
 * depending on the gateway's light unit. Each is reported as what it is: the
 * gateway derives one from the other with a fixed factor, and that factor is
 * not ours to repeat, so no cross-conversion happens here.
 */
export function light(m: Measure | null): { field: 'solar_w_m2' | 'illuminance_lx'; value: number } | null {
  if (!m || m.value < 0) return null;
  switch (m.unit) {
    case 'w/m2':
      return { field: 'solar_w_m2', value: m.value };
    case 'lux':
      return { field: 'illuminance_lx', value: m.value };
    case 'klux':
      return { field: 'illuminance_lx', value: m.value * 1000 };
    case 'kfc':
      return { field: 'illuminance_lx', value: m.value * 1000 * LUX_PER_FOOT_CANDLE };
    case 'fc':
      return { field: 'illuminance_lx', value: m.value * LUX_PER_FOOT_CANDLE };
    default:
      return null;
  }
}
