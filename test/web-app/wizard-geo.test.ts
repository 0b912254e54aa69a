import {
  fromXY,
  graticule,
  graticuleStep,
  roundCoord,
  toXY,
  viewBox,
  formatLatLon,
} from '../../web/app/pages/wizard/geo';
import { validateNewAccount, hasErrors } from '../../web/app/pages/login/account';

describe('wizard map geometry', () => {
  it('maps coordinates to the equirectangular plane and back', () => {
    expect(toXY(40.7128, -74.006)).toEqual({ x: 105.994, y: 49.2872 });
    expect(fromXY(105.994, 49.2872)).toEqual({ lat: 40.7128, lon: -74.006 });
    expect(fromXY(0, 0)).toEqual({ lat: 90, lon: -180 });
    expect(fromXY(360, 180)).toEqual({ lat: -90, lon: 180 });
    // Clicks just outside the world clamp and wrap.
    expect(fromXY(370, -5)).toEqual({ lat: 90, lon: -170 });
  });

  it('rounds without negative zero', () => {
    expect(Object.is(roundCoord(-0.00001), 0)).toBe(true);
    expect(roundCoord(12.345678, 3)).toBe(12.346);
  });

  it('keeps the zoomed window inside the world, centred on the point when it can', () => {
    expect(viewBox(1, null)).toEqual({ x: 0, y: 0, w: 360, h: 180 });
    expect(viewBox(4, { lat: 0, lon: 0 })).toEqual({ x: 135, y: 67.5, w: 90, h: 45 });
    expect(viewBox(4, { lat: 89, lon: 179 })).toEqual({ x: 270, y: 0, w: 90, h: 45 });
  });

  it('draws fewer graticule lines on the whole world', () => {
    expect(graticuleStep(1)).toBe(30);
    expect(graticuleStep(16)).toBe(1);
    const lines = graticule({ x: 135, y: 67.5, w: 90, h: 45 }, 10);
    expect(lines.lons).toEqual([-40, -30, -20, -10, 0, 10, 20, 30, 40]);
    expect(lines.lats).toEqual([-20, -10, 0, 10, 20]);
  });

  it('formats a point with hemispheres', () => {
    expect(formatLatLon(40.7128, -74.006)).toBe('40.7128° N, 74.0060° W');
    expect(formatLatLon(-33.9, 151.2)).toBe('33.9000° S, 151.2000° E');
  });
});

describe('new owner account', () => {
  it('catches a mismatch and an empty or malformed username before asking the service', () => {
    expect(validateNewAccount({ username: 'owner', password: 'long-pass', confirm: 'long-pass' })).toEqual(
      {},
    );
    const errors = validateNewAccount({ username: 'my name', password: 'a', confirm: 'b' });
    expect(errors).toEqual({
      username: 'Use 1-64 letters, digits or . _ @ - (no spaces).',
      confirm: 'The two passwords do not match.',
    });
    expect(validateNewAccount({ username: ' ', password: '', confirm: '' })).toEqual({
      username: 'Enter a username.',
      password: 'Enter a password.',
    });
    expect(hasErrors({})).toBe(false);
    expect(hasErrors({ confirm: 'x' })).toBe(true);
  });
});
