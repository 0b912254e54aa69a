import type { ProbeEvidence } from './probe-evidence';

/**
 * What a zone's probe decides (pure), against the owner's thresholds on the
 * zone, both in the probe's own (raw) reading:
 *
 * - at or above `saturation_pct_soil`: the zone is held today, reason code
 *   `soil_probe_wet` (listed in `skip_check.soil_probe_holds`, 0 s planned).
 *   The hold is recomputed from the latest reading at every engine run, so
 *   it clears at the first recompute after the reading falls below;
 * - below `target_min_pct_soil` while the ledger says the zone is not due:
 *   a disagreement (an anomaly for the owner), never an automatic run.
 *
 * Only a trusted reading (`calibrated` or `uncalibrated`) holds: an offline,
 * stuck or out-of-range probe is reported, not obeyed.
 */

export const PROBE_HOLD_CODE = 'soil_probe_wet';

export interface ProbeThresholds {
  target_min_pct_soil?: number | null;
  saturation_pct_soil?: number | null;
}

export function isTrusted(probe: ProbeEvidence): boolean {
  return probe.status === 'calibrated' || probe.status === 'uncalibrated';
}

/** The hold sentence when the probe holds the zone, else null. */
export function probeHoldReason(probe: ProbeEvidence, zone: ProbeThresholds): string | null {
  const saturation = zone.saturation_pct_soil ?? null;
  if (!isTrusted(probe) || saturation === null || probe.raw_pct === null || probe.raw_pct < saturation) {
    return null;
  }
  return `soil probe ${probe.sensor_id} reads ${probe.raw_pct} %, at or above the zone's saturation threshold (${saturation} %): watering is held until it reads below`;
}

/** The disagreement sentence when the probe reads dry but the ledger says not due, else null. */
export function probeDisagreement(
  probe: ProbeEvidence,
  zone: ProbeThresholds,
  ledgerNeed: 'due' | 'not_due' | 'unknown' | null,
): string | null {
  const min = zone.target_min_pct_soil ?? null;
  if (!isTrusted(probe) || min === null || probe.raw_pct === null || probe.raw_pct >= min) return null;
  if (ledgerNeed !== 'not_due') return null;
  return `soil probe ${probe.sensor_id} reads ${probe.raw_pct} %, below the zone's watering threshold (${min} %), but the soil ledger says the zone is not due: no automatic run; check the probe's placement and the zone's settings`;
}

/** Per zone slug, the hold sentence of every zone its probe holds now. */
export function probeHolds(
  zones: readonly { slug: string; config: ProbeThresholds }[],
  probes: ReadonlyMap<string, ProbeEvidence> | undefined,
): Record<string, string> {
  const holds: Record<string, string> = {};
  for (const zone of zones) {
    const probe = probes?.get(zone.slug);
    const reason = probe ? probeHoldReason(probe, zone.config) : null;
    if (reason !== null) holds[zone.slug] = reason;
  }
  return holds;
}
