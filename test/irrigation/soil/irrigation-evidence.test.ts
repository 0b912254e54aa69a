import { depthMmOfVolume, volumeGalOfDepth } from '../../../server/src/agronomy/catalogs/units';
import {
  dailyIrrigation,
  depthBasis,
  grossDepthMm,
  type EvidenceRow,
} from '../../../server/src/irrigation/soil/irrigation-evidence';
import { localCalendar } from '../../../server/src/irrigation/skip/local-days';
import { dateAt, local, NOW, TZ } from '../engine/fixtures';

/**
 * The one seam deciding what runs put into the soil (irrigation-evidence.ts):
 * a meter's volume over the zone's area where a metered row covers the
 * stretch, open seconds x the zone's rate otherwise, and never twice.
 */

const cal = localCalendar(TZ, NOW);
const AREA = 1000; // sq ft
const RATE = 20; // mm/h: 1800 s is 10 mm by rate
const AT = local(`${dateAt(-2)}T05:00:00`);
/** The meter's reading of an 8 mm run over the area (not the 10 mm the rate says). */
const METERED_GAL = volumeGalOfDepth(8, AREA);

function row(values: Partial<EvidenceRow> = {}): EvidenceRow {
  return {
    zone: 'plot',
    start_epoch: AT,
    duration_s: 1800,
    skip_reason: null,
    source: 'ha_refresher',
    status: 'completed',
    evidence: 'observed',
    volume_gal: volumeGalOfDepth(10, AREA),
    ...values,
  };
}

const metered = (values: Partial<EvidenceRow> = {}) =>
  row({ evidence: 'metered', volume_gal: METERED_GAL, ...values });

function day(runs: EvidenceRow[], area: number | null = AREA, date = dateAt(-2)) {
  const d = dailyIrrigation('plot', runs, cal, area).get(date);
  if (!d) throw new Error(`no water on ${date}`);
  return { ...d, gross: grossDepthMm(d, RATE), basis: depthBasis(d) };
}

describe('metered water in the soil', () => {
  it('converts gallons over square feet to mm both ways', () => {
    expect(depthMmOfVolume(1, 1)).toBeCloseTo(40.746, 3); // 3.785 L over 0.0929 m²
    expect(depthMmOfVolume(volumeGalOfDepth(12.3, 750), 750)).toBeCloseTo(12.3, 9);
  });

  it("credits a metered run's volume over the area, not seconds x rate", () => {
    const d = day([metered({ source: 'manual' })]);
    expect(d).toMatchObject({ seconds: 1800, basis: 'meter', rate_seconds: 0, evidence: 'metered' });
    expect(d.gross).toBeCloseTo(8, 9);
    expect(d.metered_gal).toBeCloseTo(METERED_GAL, 9);
  });

  it('credits a run once when its request row and its observed hardware row both carry the reading', () => {
    const d = day([metered({ source: 'manual:req1' }), metered({ source: 'ha_refresher' })]);
    expect(d.seconds).toBe(1800);
    expect(d.gross).toBeCloseTo(8, 9);
    expect(d.basis).toBe('meter');
  });

  it('credits the meter once when only one of the two rows carries it (the other lies inside it)', () => {
    const d = day([row({ source: 'manual:req1' }), metered({ source: 'ha_refresher', duration_s: 1800 })]);
    expect(d.gross).toBeCloseTo(8, 9);
    expect(d.basis).toBe('meter');
    // The weakest kind of the day's water is still told.
    expect(d.evidence).toBe('observed');
  });

  it('falls back to seconds x rate without an area', () => {
    const d = day([metered()], null);
    expect(d).toMatchObject({ basis: 'rate', rate_seconds: 1800, metered_mm: 0 });
    expect(d.gross).toBeCloseTo(10, 9);
  });

  it('falls back to seconds x rate when an unmetered run sticks out of the metered one', () => {
    const d = day([metered(), row({ source: 'manual', start_epoch: AT + 900, duration_s: 1200 })]);
    expect(d.seconds).toBe(2100);
    expect(d.basis).toBe('rate');
    expect(d.gross).toBeCloseTo((2100 / 3600) * RATE, 9);
  });

  it('falls back to seconds x rate when two metered runs only partly overlap (their volumes share seconds)', () => {
    const d = day([metered(), metered({ source: 'manual', start_epoch: AT + 900, duration_s: 1800 })]);
    expect(d).toMatchObject({ seconds: 2700, basis: 'rate' });
  });

  it('mixes bases across separate runs of a day, and says so', () => {
    const d = day([metered(), row({ start_epoch: AT + 7200, duration_s: 900 })]);
    expect(d.basis).toBe('meter_and_rate');
    expect(d.gross).toBeCloseTo(8 + (900 / 3600) * RATE, 9);
  });

  it('splits a metered run across local midnight by its seconds', () => {
    const midnight = local(`${dateAt(-1)}T00:00:00`);
    const runs = [metered({ start_epoch: midnight - 600, duration_s: 1800 })];
    const before = day(runs, AREA, dateAt(-2));
    const after = day(runs, AREA, dateAt(-1));
    expect([before.seconds, after.seconds]).toEqual([600, 1200]);
    expect(before.gross).toBeCloseTo(8 / 3, 9);
    expect(after.gross).toBeCloseTo((8 * 2) / 3, 9);
  });

  it('reads a metered row of no water as no water (the valve did not open), not as the rate', () => {
    const d = day([metered({ volume_gal: 0 })]);
    expect(d).toMatchObject({ basis: 'meter', seconds: 1800 });
    expect(d.gross).toBe(0);
  });
});
