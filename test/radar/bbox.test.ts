import { BboxError, bboxKey, gridFor, parseBbox, snapBbox } from '../../server/src/radar/bbox';

function codeOf(raw: unknown): string {
  try {
    parseBbox(raw);
  } catch (err) {
    if (err instanceof BboxError) return err.code;
    throw err;
  }
  return 'ok';
}

describe('parseBbox', () => {
  it('reads minLon,minLat,maxLon,maxLat', () => {
    expect(parseBbox('-122.5, 37.2,-121.1,38.6')).toEqual({
      minLon: -122.5,
      minLat: 37.2,
      maxLon: -121.1,
      maxLat: 38.6,
    });
    expect(parseBbox('-180,-90,-160,-70')).toEqual({ minLon: -180, minLat: -90, maxLon: -160, maxLat: -70 });
  });

  it.each([
    [undefined, 'bbox_missing'],
    ['', 'bbox_missing'],
    ['   ', 'bbox_missing'],
    [['1,2,3,4', '1,2,3,4'], 'bbox_malformed'],
    ['1,2,3', 'bbox_malformed'],
    ['1,2,3,4,5', 'bbox_malformed'],
    ['a,b,c,d', 'bbox_malformed'],
    ['1,,3,4', 'bbox_malformed'],
    ['0x10,1,20,3', 'bbox_malformed'],
    ['Infinity,1,2,3', 'bbox_malformed'],
    ['NaN,1,2,3', 'bbox_malformed'],
    ['-190,0,-175,10', 'bbox_out_of_range'],
    ['175,0,181,10', 'bbox_out_of_range'],
    ['0,-95,10,0', 'bbox_out_of_range'],
    ['0,80,10,90.5', 'bbox_out_of_range'],
    ['10,0,0,10', 'bbox_inverted'],
    ['0,10,10,0', 'bbox_inverted'],
    ['5,5,5,6', 'bbox_inverted'],
    ['170,-10,-170,10', 'bbox_inverted'],
    ['0,0,20.5,10', 'bbox_too_large'],
    ['0,0,10,21', 'bbox_too_large'],
    ['0,0,20,20', 'ok'],
  ])('%j -> %s', (raw, code) => {
    expect(codeOf(raw)).toBe(code);
  });
});

describe('snapBbox', () => {
  it('snaps inward to 0.01 degree so near-identical views share a key', () => {
    const a = snapBbox(parseBbox('-122.5013,37.2004,-121.1009,38.6049'));
    const b = snapBbox(parseBbox('-122.5,37.2,-121.1,38.6'));
    expect(a).toEqual({ minLon: -122.5, minLat: 37.21, maxLon: -121.11, maxLat: 38.6 });
    expect(b).toEqual({ minLon: -122.5, minLat: 37.2, maxLon: -121.1, maxLat: 38.6 });
    expect(bboxKey(snapBbox(parseBbox('-122.5004,37.2,-121.1,38.6009')))).toBe(bboxKey(b));
  });

  it('never moves an edge outside the requested bbox', () => {
    const bbox = parseBbox('10.005,20.005,10.027,20.029');
    const snapped = snapBbox(bbox);
    expect(snapped.minLon).toBeGreaterThanOrEqual(bbox.minLon);
    expect(snapped.maxLon).toBeLessThanOrEqual(bbox.maxLon);
    expect(snapped.minLat).toBeGreaterThanOrEqual(bbox.minLat);
    expect(snapped.maxLat).toBeLessThanOrEqual(bbox.maxLat);
  });

  it('keeps a bbox too narrow to snap as given', () => {
    const bbox = parseBbox('10.001,20.001,10.009,20.009');
    expect(snapBbox(bbox)).toEqual(bbox);
  });
});

describe('gridFor', () => {
  it('lays 8x8 corner points from the north-west corner, rows north to south', () => {
    const grid = gridFor(parseBbox('-122.5,37.2,-121.1,38.6'));
    expect(grid).toEqual(
      expect.objectContaining({
        nx: 8,
        ny: 8,
        lo1: -122.5,
        la1: 38.6,
        lo2: -121.1,
        la2: 37.2,
        dx: 0.2,
        dy: 0.2,
      }),
    );
    expect(grid.lons).toEqual([-122.5, -122.3, -122.1, -121.9, -121.7, -121.5, -121.3, -121.1]);
    expect(grid.lats).toEqual([38.6, 38.4, 38.2, 38, 37.8, 37.6, 37.4, 37.2]);
    expect(grid.points).toHaveLength(64);
    expect(grid.points[0]).toEqual({ lat: 38.6, lon: -122.5 });
    expect(grid.points[7]).toEqual({ lat: 38.6, lon: -121.1 });
    expect(grid.points[8]).toEqual({ lat: 38.4, lon: -122.5 });
    expect(grid.points[63]).toEqual({ lat: 37.2, lon: -121.1 });
  });

  it('keeps every point inside the bbox', () => {
    const bbox = parseBbox('-0.3333333,-0.1111111,0.7777777,0.9999999');
    for (const p of gridFor(bbox).points) {
      expect(p.lon).toBeGreaterThanOrEqual(bbox.minLon);
      expect(p.lon).toBeLessThanOrEqual(bbox.maxLon);
      expect(p.lat).toBeGreaterThanOrEqual(bbox.minLat);
      expect(p.lat).toBeLessThanOrEqual(bbox.maxLat);
    }
  });
});
