import { resolvePrecipRate } from '../../agronomy/catalogs/sprinklers';
import { depthMmOfVolume, volumeGalOfDepth } from '../../agronomy/catalogs/units';
import type { ZoneConfig } from '../../config/schema';
import type { RunEvidence } from '../../store/runs';
import type { ZoneRoute } from './driver';

/**
 * The depth and volume a run delivered (spec 2.5 run record `applied_mm`,
 * `volume_gal`): depth from the zone's precipitation rate (its own, else its
 * sprinkler type's catalog rate), volume from that depth over the zone's area.
 * Either is null when its input is unknown: no rate, no area, no number.
 * Metered water wins: a meter's volume is the run's `volume_gal`, and its
 * depth over the zone's area is `applied_mm` when the area is known.
 */

export interface WaterAmount {
  applied_mm: number | null;
  volume_gal: number | null;
}

/** What a flow meter measured over a run's open interval. */
export interface MeteredWater {
  volume_gal: number;
  mean_flow_gpm: number;
}

/** A finished row's water: amounts, their evidence, and the metered mean flow. */
export interface RecordedWater extends WaterAmount {
  evidence: RunEvidence;
  mean_flow_gpm: number | null;
}

export function waterAmount(zone: ZoneConfig | undefined, openSeconds: number): WaterAmount {
  const rate = precipRate(zone);
  if (rate === null || openSeconds <= 0) return { applied_mm: rate === null ? null : 0, volume_gal: null };
  const mm = (openSeconds / 3600) * rate;
  const area = zone?.area_sqft;
  const gallons = area ? volumeGalOfDepth(mm, area) : null;
  return { applied_mm: round(mm, 2), volume_gal: gallons === null ? null : round(gallons, 1) };
}

/** What kind of pretend a row's valve is: none (real), a dry run, or the demo's synthetic yard. */
export type Pretend = 'real' | 'dry_run' | 'synthetic_yard';

export function pretendOf(route: Pick<ZoneRoute, 'simulated' | 'synthetic_yard'>): Pretend {
  if (!route.simulated) return 'real';
  return route.synthetic_yard ? 'synthetic_yard' : 'dry_run';
}

/**
 * The row's water from its evidence: pretend water has no amounts (spec:
 * dry-run records are not applied water), its evidence `commanded` on a dry
 * run and `simulated` on the demo's synthetic yard, whose soil ledger reckons
 * its depth from the open seconds; a meter's reading makes a real row
 * `metered`; otherwise the rate-based amounts.
 */
export function recordedWater(
  zone: ZoneConfig | undefined,
  openSeconds: number,
  evidence: Exclude<RunEvidence, 'metered' | 'simulated'>,
  metered: MeteredWater | null,
  pretend: Pretend = 'real',
): RecordedWater {
  if (pretend !== 'real') {
    const kind = pretend === 'synthetic_yard' ? 'simulated' : 'commanded';
    return { applied_mm: null, volume_gal: null, evidence: kind, mean_flow_gpm: null };
  }
  const byRate = waterAmount(zone, openSeconds);
  if (!metered) return { ...byRate, evidence, mean_flow_gpm: null };
  const area = zone?.area_sqft;
  const depth = area ? depthMmOfVolume(metered.volume_gal, area) : null;
  return {
    applied_mm: depth === null ? byRate.applied_mm : round(depth, 2),
    volume_gal: round(metered.volume_gal, 1),
    evidence: 'metered',
    mean_flow_gpm: round(metered.mean_flow_gpm, 2),
  };
}

function precipRate(zone: ZoneConfig | undefined): number | null {
  if (!zone) return null;
  if (zone.precip_rate_mm_hr) return zone.precip_rate_mm_hr;
  return zone.sprinkler_type ? resolvePrecipRate(zone.sprinkler_type, null).precip_rate_mm_hr : null;
}

function round(value: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
