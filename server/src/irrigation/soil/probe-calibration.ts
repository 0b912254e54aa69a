/**
 * A soil probe's calibration (pure): two raw readings of the probe itself,
 * not the owner's zone thresholds. The dry point is what the probe reads at
 * the wilting point (or the documented dry reference: the probe in dry air
 * / the driest reading of the season); the wet point is what it reads at
 * field capacity, a day after a soak. Between them the reading is linear:
 *
 *   reading_pct = 100 x (raw - dry) / (wet - dry), clamped to 0..100
 *
 * so 0 % is the wilting point (depletion = TAW) and 100 % is field capacity
 * (depletion 0). A probe with either point missing, or a wet point not above
 * the dry point, is uncalibrated: its raw reading is relative only.
 */

export type CalibrationOrigin = 'owner' | 'ledger_refill';

export interface ProbeCalibration {
  dry_raw_pct: number | null;
  wet_raw_pct: number | null;
  dry_origin: CalibrationOrigin | null;
  wet_origin: CalibrationOrigin | null;
  updated_epoch: number;
}

export function emptyCalibration(): ProbeCalibration {
  return { dry_raw_pct: null, wet_raw_pct: null, dry_origin: null, wet_origin: null, updated_epoch: 0 };
}

export function isCalibrated(cal: ProbeCalibration | null): cal is ProbeCalibration & {
  dry_raw_pct: number;
  wet_raw_pct: number;
} {
  return (
    cal !== null && cal.dry_raw_pct !== null && cal.wet_raw_pct !== null && cal.wet_raw_pct > cal.dry_raw_pct
  );
}

/** The calibrated reading (0 = wilting point, 100 = field capacity); null when uncalibrated. */
export function calibratedPct(raw: number, cal: ProbeCalibration | null): number | null {
  if (!isCalibrated(cal) || !Number.isFinite(raw)) return null;
  const pct = (100 * (raw - cal.dry_raw_pct)) / (cal.wet_raw_pct - cal.dry_raw_pct);
  return Math.min(100, Math.max(0, pct));
}

/** Root-zone depletion the calibrated reading stands for: TAW x (100 - pct) / 100. */
export function depletionOfPct(pct: number, tawMm: number): number {
  return (tawMm * (100 - pct)) / 100;
}

/** The calibrated reading a depletion stands for (the forward curve): 100 x (TAW - D) / TAW. */
export function pctOfDepletion(depletionMm: number, tawMm: number): number {
  if (!(tawMm > 0)) return 0;
  return Math.min(100, Math.max(0, (100 * (tawMm - depletionMm)) / tawMm));
}
