import {
  MAX_PM_ESTIMATES_BEFORE_HARGREAVES,
  et0,
  et0AsceDaily,
  et0HargreavesSamani,
  et0PenmanMonteithDaily,
  type Et0Inputs,
} from '../../../server/src/agronomy/et0';

/** Method selection: `auto` ranks PM measured > PM with estimates > Hargreaves > source_native > null. */

const full: Et0Inputs = {
  tMaxC: 21.5,
  tMinC: 12.3,
  rhMaxPct: 84,
  rhMinPct: 63,
  windSpeedMs: 2.078,
  solarRadiationMjM2Day: 22.07,
  latitudeDeg: 50.8,
  elevationM: 100,
  dayOfYear: 187,
  sourceNativeEt0Mm: 3.5,
};
const temperaturesOnly: Et0Inputs = {
  tMaxC: 21.5,
  tMinC: 12.3,
  latitudeDeg: 50.8,
  elevationM: 100,
  dayOfYear: 187,
  sourceNativeEt0Mm: 3.5,
};
const noTemperatures: Et0Inputs = { ...full, tMaxC: null, tMinC: null };

describe('et0(inputs, "auto")', () => {
  it('1. Penman-Monteith when radiation, humidity and wind are measured', () => {
    const s = et0(full);
    expect(s.requested).toBe('auto');
    expect(s.method).toBe('penman_monteith');
    expect(s.estimated).toEqual([]);
    expect(s.et0_mm).toBeCloseTo(et0PenmanMonteithDaily(full)?.et0_mm ?? NaN, 12);
    expect(s.reason).toMatch(/all measured/);
    expect(s.candidates.map((c) => c.method)).toEqual([
      'penman_monteith',
      'hargreaves_samani',
      'source_native',
    ]);
    expect(s.result?.steps).toBeDefined();
  });

  it('2. Penman-Monteith with one chapter 3 estimate, and says how many', () => {
    const s = et0({ ...full, windSpeedMs: null });
    expect(s.method).toBe('penman_monteith');
    expect(s.estimated).toEqual(['wind']);
    expect(s.reason).toMatch(/1 input estimated/);
    expect(s.reason).toMatch(/wind \(2 m\/s/);
  });

  it('2. Penman-Monteith with two estimates is still preferred to Hargreaves', () => {
    expect(MAX_PM_ESTIMATES_BEFORE_HARGREAVES).toBe(2);
    const s = et0({ ...full, windSpeedMs: null, solarRadiationMjM2Day: null });
    expect(s.method).toBe('penman_monteith');
    expect([...s.estimated].sort()).toEqual(['radiation', 'wind']);
    expect(s.reason).toMatch(/2 inputs estimated/);
    expect(s.reason).toMatch(/eq\. 50, kRs 0\.16/);
  });

  it('3. Hargreaves-Samani with temperatures only', () => {
    const s = et0(temperaturesOnly);
    expect(s.method).toBe('hargreaves_samani');
    expect(s.estimated).toEqual([]);
    expect(s.et0_mm).toBeCloseTo(et0HargreavesSamani(temperaturesOnly)?.et0_mm ?? NaN, 12);
    expect(s.reason).toMatch(/only temperatures/);
    // Penman-Monteith was computable, with three estimates, and is in the trace.
    expect(s.candidates[0]?.usable).toBe(true);
    expect(s.candidates[0]?.estimated).toHaveLength(3);
  });

  it('3. Hargreaves-Samani when PM cannot be computed but temperatures and the site are known (no elevation)', () => {
    const s = et0({ ...full, elevationM: null });
    expect(s.method).toBe('hargreaves_samani');
    expect(s.reason).toMatch(/elevationM/);
  });

  it('4. source_native when only the provider’s ET0 exists', () => {
    const s = et0(noTemperatures);
    expect(s.method).toBe('source_native');
    expect(s.et0_mm).toBe(3.5);
    expect(s.result).toBeNull();
    expect(s.reason).toMatch(/tMaxC, tMinC/);
  });

  it('4. a reported provider zero is a zero', () => {
    const s = et0({ ...noTemperatures, sourceNativeEt0Mm: 0 });
    expect(s.method).toBe('source_native');
    expect(s.et0_mm).toBe(0);
  });

  it('5. null, never 0, when nothing supports a value', () => {
    for (const native of [null, undefined, Number.NaN]) {
      const s = et0({ ...noTemperatures, sourceNativeEt0Mm: native });
      expect(s.method).toBeNull();
      expect(s.et0_mm).toBeNull();
      expect(s.reason).toMatch(/no method/);
      expect(s.candidates.every((c) => !c.usable)).toBe(true);
    }
  });
});

describe('et0(inputs, method) for a named method', () => {
  it('penman_monteith computes PM with estimates, or null with the reason', () => {
    const s = et0(temperaturesOnly, 'penman_monteith');
    expect(s.method).toBe('penman_monteith');
    expect(s.estimated).toHaveLength(3);
    const missing = et0(noTemperatures, 'penman_monteith');
    expect(missing.method).toBeNull();
    expect(missing.et0_mm).toBeNull();
    expect(missing.reason).toMatch(/unavailable: missing tMaxC, tMinC/);
  });

  it('asce_simplified computes the ASCE standardized short reference', () => {
    const s = et0(full, 'asce_simplified');
    expect(s.method).toBe('asce_simplified');
    expect(s.et0_mm).toBeCloseTo(et0AsceDaily(full)?.et0_mm ?? NaN, 12);
  });

  it('hargreaves_samani even when PM inputs exist', () => {
    const s = et0(full, 'hargreaves_samani');
    expect(s.method).toBe('hargreaves_samani');
    expect(s.et0_mm).toBeCloseTo(et0HargreavesSamani(full)?.et0_mm ?? NaN, 12);
  });

  it('source_native returns the provider value unchanged; null stays null', () => {
    expect(et0({ ...full, sourceNativeEt0Mm: 4.123456 }, 'source_native').et0_mm).toBe(4.123456);
    expect(et0({ ...full, sourceNativeEt0Mm: 0 }, 'source_native').et0_mm).toBe(0);
    const none = et0({ ...full, sourceNativeEt0Mm: null }, 'source_native');
    expect(none.et0_mm).toBeNull();
    expect(none.method).toBeNull();
    expect(et0({ ...full, sourceNativeEt0Mm: undefined }, 'source_native').et0_mm).toBeNull();
  });
});
