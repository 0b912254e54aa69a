import { rootZoneDay } from '../../../server/src/agronomy/soil/root-zone-day';
import { BRIDGED_ET0_SHARE, withEt0Band } from '../../../server/src/irrigation/soil/et0-bridge';
import type { RecordEt0 } from '../../../server/src/irrigation/soil/et0-of-day';

/**
 * A recorded day's ET0 band (irrigation/soil/et0-bridge.ts): an estimate from
 * inputs the station usually measures carries +-25 %, an unknown ET0 is
 * bounded by the recent week, and an install that never measured an input
 * gets no band for it. The root-zone day turns the band into a range whose
 * width is the band's, not the whole TAW.
 */

const STATION = {
  tmax: 'station',
  tmin: 'station',
  humidity: 'station',
  wind: 'station',
  radiation: 'station',
};

function et0(
  mm: number | null,
  inputs: Record<string, string> = STATION,
  method = 'penman_monteith',
): RecordEt0 {
  return { et0_mm: mm, method: mm === null ? null : method, reason: 'test day', inputs };
}

const week = [8, 9, 10, 8.5, 9.5, 7, 11].map((mm) => et0(mm));

describe('withEt0Band', () => {
  it('a measured day like the week before has no band', () => {
    expect(withEt0Band(et0(9), week).band_mm).toBeNull();
  });

  it('an estimate from inputs the station usually measures carries +-25 % and names the bridged inputs', () => {
    const sensorsGap = et0(
      8.4,
      { ...STATION, humidity: 'none', wind: 'none', radiation: 'none' },
      'hargreaves_samani',
    );
    const banded = withEt0Band(sensorsGap, week);
    expect(banded.et0_mm).toBe(8.4);
    expect(banded.band_mm?.[0]).toBeCloseTo(8.4 * (1 - BRIDGED_ET0_SHARE), 3);
    expect(banded.band_mm?.[1]).toBeCloseTo(8.4 * (1 + BRIDGED_ET0_SHARE), 3);
    expect(banded.reason).toContain('radiation from none');
    const modelTemps = et0(9.3, { ...STATION, tmax: 'model_archive', tmin: 'model_archive' });
    expect(withEt0Band(modelTemps, week).reason).toContain('tmax from model_archive');
  });

  it('an install that never measured radiation gets no band for estimating it', () => {
    const tempsOnly = { ...STATION, humidity: 'none', wind: 'none', radiation: 'none' };
    const usual = [8, 9, 10].map((mm) => et0(mm, tempsOnly, 'hargreaves_samani'));
    expect(withEt0Band(et0(8.4, tempsOnly, 'hargreaves_samani'), usual).band_mm).toBeNull();
  });

  it('an unknown ET0 stays null, bounded by the recent week widened by 25 %; with no recent day it has no band', () => {
    const banded = withEt0Band(et0(null, {}), [...week, undefined]);
    expect(banded.et0_mm).toBeNull();
    expect(banded.band_mm).toEqual([7 * 0.75, 11 * 1.25]);
    expect(withEt0Band(et0(null, {}), [undefined, et0(null, {})]).band_mm).toBeNull();
  });
});

describe('rootZoneDay with an ET0 band', () => {
  const zone = { taw_mm: 21, raw_mm: 8.4, rain_cap_mm: 25 };
  const input = { kc: 0.85, sun_factor: 1, rain_mm: 0, net_irrigation_mm: 0 };

  it('an unknown ET0 with a band ends in the band, not in [.., TAW]', () => {
    const day = rootZoneDay(
      { lo: 2, hi: 2 },
      { ...input, et0_mm: null, et0_band_mm: { lo: 6, hi: 10 } },
      zone,
    );
    expect(day.end.lo).toBeCloseTo(2 + 0.85 * 6, 9);
    expect(day.end.hi).toBeCloseTo(2 + 0.85 * 10, 9);
    expect(day.etc_mm).toBeNull();
    expect(rootZoneDay({ lo: 2, hi: 2 }, { ...input, et0_mm: null }, zone).end.hi).toBe(21);
  });

  it('a bridged estimate keeps its ETc and spans its band; a refill to the upper end makes the state known', () => {
    const day = rootZoneDay({ lo: 2, hi: 2 }, { ...input, et0_mm: 8, et0_band_mm: { lo: 6, hi: 10 } }, zone);
    expect(day.etc_mm).toBeCloseTo(6.8, 9);
    expect(day.end.hi - day.end.lo).toBeCloseTo(0.85 * 4, 9);
    const refill = rootZoneDay(day.end, { ...input, et0_mm: 0, net_irrigation_mm: day.end.hi }, zone);
    expect(refill.end).toEqual({ lo: 0, hi: 0 });
  });

  it('rejects a reversed band', () => {
    expect(() =>
      rootZoneDay({ lo: 0, hi: 0 }, { ...input, et0_mm: null, et0_band_mm: { lo: 5, hi: 4 } }, zone),
    ).toThrow(RangeError);
  });
});
