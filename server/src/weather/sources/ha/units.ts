import { convert, fieldQuantity, WEATHER_FIELDS, type Quantity, type WeatherField } from '../../fields';

/**
 * Home Assistant `unit_of_measurement` strings to snapshot units (pure).
 * Each snapshot field belongs to one unit family; a family lists the HA unit
 * strings it understands and how to convert each into the snapshot's unit.
 * Unit strings are compared after normalisation (NFKC, lower case, no spaces),
 * so `°C`, `℃` and `° C` are the same unit, and `W/m²` equals `W/m2`.
 */

export type UnitFamily = Quantity;

/** Exhaustive: a new snapshot field fails to compile until it is given a family. */
export const FIELD_UNIT_FAMILY: Record<WeatherField, UnitFamily> = Object.fromEntries(
  WEATHER_FIELDS.map((field) => [field, fieldQuantity(field)]),
) as Record<WeatherField, UnitFamily>;

type Converter = (value: number) => number;
const same: Converter = (v) => v;

interface FamilySpec {
  /** The snapshot's unit, for messages. */
  snapshotUnit: string;
  /** Normalised HA unit string -> conversion into the snapshot unit. */
  units: Readonly<Record<string, Converter>>;
  /** Counts carry labels (`strikes`), not dimensions: any unit string is accepted as is. */
  anyUnit?: boolean;
}

const MMHG_PER_INHG = 25.4;
const INHG_PER_PSI = 2.03602;
const MPH_PER_KNOT = 1.15077944802354;
const MPH_PER_FT_S = 0.681818181818182;
const W_M2_PER_BTU_H_FT2 = 3.15459074506;

const FAMILIES: Readonly<Record<UnitFamily, FamilySpec>> = {
  temperature: {
    snapshotUnit: '°F',
    units: {
      '°f': same,
      f: same,
      '°c': convert.cToF,
      c: convert.cToF,
      k: (k) => convert.cToF(k - 273.15),
    },
  },
  percent: { snapshotUnit: '%', units: { '%': same } },
  pressure: {
    snapshotUnit: 'inHg',
    units: {
      inhg: same,
      hpa: convert.hpaToInhg,
      mbar: convert.hpaToInhg,
      pa: convert.paToInhg,
      kpa: (kpa) => convert.hpaToInhg(kpa * 10),
      cbar: (cbar) => convert.hpaToInhg(cbar * 10),
      bar: (bar) => convert.hpaToInhg(bar * 1000),
      mmhg: (mmhg) => mmhg / MMHG_PER_INHG,
      psi: (psi) => psi * INHG_PER_PSI,
    },
  },
  speed: {
    snapshotUnit: 'mph',
    units: {
      mph: same,
      'km/h': convert.kmhToMph,
      kph: convert.kmhToMph,
      'm/s': convert.msToMph,
      kn: (kn) => kn * MPH_PER_KNOT,
      kt: (kn) => kn * MPH_PER_KNOT,
      'ft/s': (fts) => fts * MPH_PER_FT_S,
    },
  },
  direction: { snapshotUnit: '°', units: { '°': same, deg: same } },
  illuminance: { snapshotUnit: 'lx', units: { lx: same, lux: same, klx: (klx) => klx * 1000 } },
  uv: { snapshotUnit: 'UV index', units: { uvindex: same, uvi: same, index: same } },
  irradiance: {
    snapshotUnit: 'W/m²',
    units: {
      'w/m2': same,
      'btu/(h⋅ft2)': (v) => v * W_M2_PER_BTU_H_FT2,
      'btu/(h·ft2)': (v) => v * W_M2_PER_BTU_H_FT2,
    },
  },
  depth: {
    snapshotUnit: 'in',
    units: { in: same, mm: convert.mmToIn, cm: (cm) => convert.mmToIn(cm * 10) },
  },
  rate: {
    snapshotUnit: 'in/h',
    units: {
      'in/h': same,
      'in/hr': same,
      'mm/h': convert.mmToIn,
      'mm/hr': convert.mmToIn,
      'in/d': (v) => v / 24,
      'mm/d': (v) => convert.mmToIn(v) / 24,
    },
  },
  count: { snapshotUnit: '', units: {}, anyUnit: true },
  distance: {
    snapshotUnit: 'mi',
    units: {
      mi: same,
      km: convert.kmToMi,
      m: (m) => convert.kmToMi(m / 1000),
      ft: (ft) => ft / 5280,
      yd: (yd) => yd / 1760,
    },
  },
  voltage: { snapshotUnit: 'V', units: { v: same, mv: (mv) => mv / 1000 } },
};

export function normalizeUnit(unit: string): string {
  return unit.replace(/º/g, '°').normalize('NFKC').replace(/\s+/g, '').toLowerCase();
}

export type UnitConversion = { ok: true; value: number } | { ok: false; reason: string };

/**
 * Converts one numeric HA state into the field's snapshot unit. A missing or
 * empty unit means the entity already reports in snapshot units (template
 * sensors often carry none). A unit the field's family does not know is
 * refused with a reason; the caller reports it and publishes no value.
 */
export function toSnapshotUnits(
  field: WeatherField,
  value: number,
  unit: string | null | undefined,
): UnitConversion {
  const family = FAMILIES[FIELD_UNIT_FAMILY[field]];
  const normalized = typeof unit === 'string' ? normalizeUnit(unit) : '';
  if (normalized === '' || family.anyUnit) return { ok: true, value };
  const converter = family.units[normalized];
  if (!converter) {
    return {
      ok: false,
      reason: `unit "${unit}" cannot be converted to ${family.snapshotUnit} for ${field}`,
    };
  }
  const converted = converter(value);
  return Number.isFinite(converted)
    ? { ok: true, value: converted }
    : { ok: false, reason: `value ${value} ${unit} is not a finite ${field}` };
}

/**
 * HA states are strings; only a plain decimal number is a measurement.
 * `unknown`, `unavailable`, empty, `NaN`, `inf` and anything else give null.
 */
export function parseHaNumber(state: unknown): number | null {
  if (typeof state !== 'string') return null;
  const text = state.trim();
  if (!/^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$/.test(text)) return null;
  const n = Number(text);
  return Number.isFinite(n) ? n : null;
}
