import type { SPRINKLER_TYPES } from '../../config/schema';
import { MM_PER_INCH } from './units';

/**
 * Sprinkler catalog: one entry per `zones.<slug>.sprinkler_type` value
 * (spec 2.6). `precip_rate_mm_hr` is the catalog default used when the zone's
 * `precip_rate_mm_hr` is null. A catch-cup measurement always beats these
 * numbers: real heads vary with nozzle, pressure and spacing.
 *
 * Area precipitation-rate formulas (Rain Bird Landscape Irrigation Design
 * Manual; Rain Bird Low-Volume Landscape Irrigation Design Manual):
 *   PR (in/h) = 96.3 x GPM / area (ft^2)                         (heads)
 *   PR (in/h) = 231 x GPH / (emitter spacing in x row spacing in) (drip grid)
 *
 * Distribution uniformity, lower quarter (DU_LQ): the Irrigation
 * Association's expected catch-can values from its Landscape Irrigation
 * Auditor training ("very good" column: fixed spray 0.65, rotor 0.70) and
 * the industry minimum emission uniformity for drip/micro-irrigation, 0.80
 * (Irrigation Association / ASABE EP405 design practice). Catch-can DU is
 * not defined for drip and bubblers; for them the number is an emission
 * uniformity, which plays the same role in a schedule.
 */

export type SprinklerType = (typeof SPRINKLER_TYPES)[number];

export interface SprinklerEntry {
  type: SprinklerType;
  label: string;
  precip_rate_mm_hr: number;
  /** Lower-quarter distribution uniformity, 0..1 (emission uniformity for drip and bubbler). */
  distribution_uniformity: number;
  sources: { precip_rate: string; distribution_uniformity: string };
}

function inHrToMmHr(inHr: number): number {
  return Math.round(inHr * MM_PER_INCH * 10) / 10;
}

// Drip grid example for the formula above: 0.6 GPH inline emitters, 12 in emitter spacing, 18 in rows
// (the common inline dripline layout in the Rain Bird Low-Volume manual): 231 x 0.6 / (12 x 18) = 0.642 in/h.
const DRIP_PR_IN_HR = (231 * 0.6) / (12 * 18);
// Bubbler basin example: one 0.5 GPM bubbler flooding a 5 ft x 5 ft basin: 96.3 x 0.5 / 25 = 1.93 in/h.
// Bubblers are the highest-rate landscape emitters (Rain Bird manual: basins must hold the water).
const BUBBLER_PR_IN_HR = (96.3 * 0.5) / 25;

export const SPRINKLER_CATALOG: Readonly<Record<SprinklerType, SprinklerEntry>> = {
  rotor: {
    type: 'rotor',
    label: 'Rotor',
    precip_rate_mm_hr: inHrToMmHr(0.5), // 0.5 in/h = 12.7 mm/h: IA / Hunter & Rain Bird rotors at head-to-head, 0.4-0.6 in/h
    distribution_uniformity: 0.7, // IA auditor DU_LQ, rotor "very good"
    sources: {
      precip_rate:
        'Irrigation Association / manufacturer charts (Hunter PGP, Rain Bird 5000) head-to-head square spacing, ' +
        '0.4-0.6 in/h; midpoint 0.5 in/h',
      distribution_uniformity:
        'Irrigation Association Landscape Irrigation Auditor, rotor DU_LQ 0.70 (very good)',
    },
  },
  spray: {
    type: 'spray',
    label: 'Fixed spray',
    precip_rate_mm_hr: inHrToMmHr(1.5), // 1.5 in/h = 38.1 mm/h: fixed spray nozzles, 1.0-2.0 in/h
    distribution_uniformity: 0.65, // IA auditor DU_LQ, fixed spray "very good"
    sources: {
      precip_rate:
        'Irrigation Association / manufacturer charts (Rain Bird 1800 MPR & VAN, Hunter Pro-Spray) square spacing, ' +
        '1.0-2.0 in/h; midpoint 1.5 in/h',
      distribution_uniformity:
        'Irrigation Association Landscape Irrigation Auditor, fixed spray DU_LQ 0.65 (very good)',
    },
  },
  mp_rotator: {
    type: 'mp_rotator',
    label: 'MP Rotator (rotary nozzle)',
    precip_rate_mm_hr: inHrToMmHr(0.4), // 0.4 in/h = 10.2 mm/h: Hunter MP Rotator matched precipitation, square spacing
    distribution_uniformity: 0.7, // rotary stream nozzles audit in the rotor class (IA rotor "very good")
    sources: {
      precip_rate: 'Hunter MP Rotator catalog, matched precipitation rate approx. 0.4 in/h at square spacing',
      distribution_uniformity:
        'Irrigation Association Landscape Irrigation Auditor, rotor-class DU_LQ 0.70 (rotary stream nozzle)',
    },
  },
  drip: {
    type: 'drip',
    label: 'Drip',
    precip_rate_mm_hr: inHrToMmHr(DRIP_PR_IN_HR), // 0.642 in/h = 16.3 mm/h (grid formula above)
    distribution_uniformity: 0.8, // IA / ASABE EP405 minimum emission uniformity, micro-irrigation
    sources: {
      precip_rate:
        'Rain Bird Low-Volume Landscape Irrigation Design Manual grid formula 231 x GPH / (Se x Sr): ' +
        '0.6 GPH, 12 in x 18 in = 0.64 in/h',
      distribution_uniformity:
        'Irrigation Association / ASABE EP405 micro-irrigation emission uniformity 0.80',
    },
  },
  bubbler: {
    type: 'bubbler',
    label: 'Bubbler',
    precip_rate_mm_hr: inHrToMmHr(BUBBLER_PR_IN_HR), // 1.93 in/h = 48.9 mm/h (basin formula above)
    distribution_uniformity: 0.8, // micro-irrigation emission uniformity class (IA / ASABE EP405)
    sources: {
      precip_rate:
        'Rain Bird Landscape Irrigation Design Manual area formula 96.3 x GPM / ft^2: 0.5 GPM bubbler on a ' +
        '25 ft^2 basin = 1.93 in/h',
      distribution_uniformity:
        'Irrigation Association / ASABE EP405 micro-irrigation emission uniformity 0.80',
    },
  },
};

export function sprinklerEntry(type: SprinklerType): SprinklerEntry {
  return SPRINKLER_CATALOG[type];
}

export interface ResolvedPrecipRate {
  precip_rate_mm_hr: number;
  /** True when the zone had no rate of its own and the catalog default was used. */
  from_catalog: boolean;
}

/** Spec 2.6: `precip_rate_mm_hr` null = catalog default for the zone's sprinkler type. */
export function resolvePrecipRate(
  type: SprinklerType,
  zoneRateMmHr: number | null | undefined,
): ResolvedPrecipRate {
  if (zoneRateMmHr !== null && zoneRateMmHr !== undefined) {
    if (!Number.isFinite(zoneRateMmHr) || zoneRateMmHr <= 0) {
      throw new RangeError(`precip rate ${zoneRateMmHr} mm/h is not positive`);
    }
    return { precip_rate_mm_hr: zoneRateMmHr, from_catalog: false };
  }
  return { precip_rate_mm_hr: SPRINKLER_CATALOG[type].precip_rate_mm_hr, from_catalog: true };
}
