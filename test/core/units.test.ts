import { localizeUnits } from '../../server/src/core/units/localize';
import {
  formatQuantity,
  sentenceQuantity,
  sentenceRange,
  UNITS,
  wording,
} from '../../server/src/core/units/quantities';
import * as appUnits from '../../web/app/lib/unit-format';

/**
 * The one definition of each quantity's unit, conversion and precision
 * (server/src/core/units), and the reader that converts a service sentence
 * written in the other unit system, in both directions.
 */

describe('one definition per quantity', () => {
  it('is what the web app formats with', () => {
    expect(appUnits.formatQuantity).toBe(formatQuantity);
    expect(appUnits.localizeUnits).toBe(localizeUnits);
  });

  it('converts back to the API unit exactly (each unit is its own inverse)', () => {
    for (const [quantity, systems] of Object.entries(UNITS)) {
      for (const [system, u] of Object.entries(systems)) {
        for (const v of [-12.5, 0, 0.448, 38, 1013]) {
          expect({ quantity, system, v: u.api(u.show(v)) }).toEqual({
            quantity,
            system,
            v: expect.closeTo(v, 9) as number,
          });
        }
      }
    }
  });

  it('shows standalone figures with fixed digits', () => {
    expect(formatQuantity('depth_mm', 12.7, 'imperial')).toBe('0.50 in');
    expect(formatQuantity('depth_mm', 12.7, 'metric')).toBe('12.7 mm');
    expect(formatQuantity('temp_f', 30, 'metric')).toBe('-1.1°C');
    expect(formatQuantity('wind_mph', 12.5, 'metric')).toBe('20 km/h');
    expect(formatQuantity('rain_in', null, 'metric')).toBe('—');
  });

  it('writes numbers in sentences trimmed, precise enough to read a threshold', () => {
    expect(sentenceQuantity('rain_in', 0.448, 'imperial')).toBe('0.448 in');
    expect(sentenceQuantity('rain_in', 0.448, 'metric')).toBe('11.4 mm');
    expect(sentenceQuantity('rain_in', 0.05, 'imperial')).toBe('0.05 in');
    expect(sentenceQuantity('rain_rate_in_hr', 0.01, 'imperial')).toBe('0.01 in/hr');
    expect(sentenceQuantity('rain_rate_in_hr', 0.01, 'metric')).toBe('0.25 mm/h');
    expect(sentenceQuantity('temp_f', 38, 'imperial')).toBe('38°F');
    expect(sentenceQuantity('temp_f', 38, 'metric')).toBe('3.3°C');
    expect(sentenceQuantity('temp_f', 32, 'metric')).toBe('0°C');
    expect(sentenceQuantity('wind_mph', 10.4, 'imperial')).toBe('10.4 mph');
    expect(sentenceQuantity('wind_mph', 10, 'metric')).toBe('16.1 km/h');
    expect(sentenceQuantity('depth_mm', 14.224, 'imperial')).toBe('0.56 in');
    expect(sentenceQuantity('depth_mm', 14.224, 'metric')).toBe('14.2 mm');
    expect(sentenceQuantity('volume_gal', 42.4, 'metric')).toBe('161 L');
    expect(sentenceQuantity('flow_gpm', 4.256, 'imperial')).toBe('4.26 gal/min');
    expect(sentenceRange('depth_mm', 8, 24, 'imperial')).toBe('0.31..0.94 in');
    expect(sentenceRange('depth_mm', 8, 24, 'metric')).toBe('8..24 mm');
    expect(sentenceRange('depth_mm', 11.2, 11.24, 'imperial')).toBe('0.44 in');
    expect(wording('metric').depth(25.4)).toBe('25.4 mm');
    expect(wording().depth(25.4)).toBe('1 in');
  });
});

describe('localizeUnits', () => {
  it('reads the pre-change sentences (depths in mm, weather in in, in/hr, °F, mph) in either system', () => {
    expect(
      localizeUnits(
        'Raining now: 0.2 in/hr (station gauge) is at or above the 0.01 in/hr threshold.',
        'metric',
      ),
    ).toBe('Raining now: 5.08 mm/h (station gauge) is at or above the 0.25 mm/h threshold.');
    expect(
      localizeUnits('Freeze risk: the low is 30°F, at or below the 38°F minimum; wind 12.5 mph.', 'metric'),
    ).toBe('Freeze risk: the low is -1.1°C, at or below the 3.3°C minimum; wind 20.1 km/h.');
    expect(localizeUnits('depletion 12.7 mm reached the trigger (RAW 25.4 mm)', 'imperial')).toBe(
      'depletion 0.5 in reached the trigger (RAW 1 in)',
    );
    expect(localizeUnits('only known to lie in 8.0..24.0 mm', 'imperial')).toBe(
      'only known to lie in 0.31..0.94 in',
    );
  });

  it('reads metric sentences in imperial: °C, km/h, mm/h, L, L/min, hPa', () => {
    expect(
      localizeUnits(
        'Too windy now: 24 km/h is above the 16.1 km/h limit; the low is -1.1°C; rain 0.25 mm/h; 161 L at 16.1 L/min; 1013 hPa.',
        'imperial',
      ),
    ).toBe(
      'Too windy now: 14.9 mph is above the 10 mph limit; the low is 30°F; rain 0.01 in/hr; 43 gal at 4.25 gal/min; 29.91 inHg.',
    );
  });

  it('leaves words, identifiers and sentences already in the view units alone', () => {
    const words = 'sessions every 2 day(s); lie in 8.0; rain_3day in the next 3 days; 45% chance; 600 s';
    expect(localizeUnits(words, 'metric')).toBe(words);
    expect(localizeUnits(words, 'imperial')).toBe(words);
    expect(localizeUnits('0.448 in weighted at 29.92 inHg', 'imperial')).toBe(
      '0.448 in weighted at 29.92 inHg',
    );
    expect(localizeUnits('12.0 mm and -3.3°C', 'metric')).toBe('12.0 mm and -3.3°C');
    expect(localizeUnits('29.92 inHg', 'metric')).toBe('1013 hPa');
  });
});
