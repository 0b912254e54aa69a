import { ApiError } from '../../../server/src/http/errors';
import { DAYS_RULES, parseDays, parseExportFormat } from '../../../server/src/irrigation/history/query';

/** `days` and `format` of the history routes: defaults, spec 8 limits, and what counts as garbage. */

function rejection(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('expected a rejection');
}

describe('parseDays', () => {
  it('gives each endpoint its spec default when days is absent or blank', () => {
    expect(parseDays({}, DAYS_RULES.history)).toBe(30);
    expect(parseDays({ days: '' }, DAYS_RULES.decisions)).toBe(30);
    expect(parseDays({ days: '  ' }, DAYS_RULES.export)).toBe(365);
    expect(parseDays({}, DAYS_RULES.accuracy)).toBe(30);
  });

  it('accepts 0 (every retained record) and the maximum on history and decisions', () => {
    expect(parseDays({ days: '0' }, DAYS_RULES.history)).toBe(0);
    expect(parseDays({ days: '-0' }, DAYS_RULES.history)).toBe(0);
    expect(Object.is(parseDays({ days: '-0' }, DAYS_RULES.history), 0)).toBe(true);
    expect(parseDays({ days: '36500' }, DAYS_RULES.decisions)).toBe(36500);
    expect(parseDays({ days: '007' }, DAYS_RULES.history)).toBe(7);
  });

  it('refuses history days outside 0..36500 with invalid_query naming the range', () => {
    for (const days of ['-1', '36501', '99999999999999999999']) {
      const err = rejection(() => parseDays({ days }, DAYS_RULES.history));
      expect(err.status).toBe(400);
      expect(err.code).toBe('invalid_query');
      expect(err.message).toContain('0..36500');
    }
  });

  it('clamps export to 1..3650 and accuracy to 1..365', () => {
    expect(parseDays({ days: '0' }, DAYS_RULES.export)).toBe(1);
    expect(parseDays({ days: '-20' }, DAYS_RULES.export)).toBe(1);
    expect(parseDays({ days: '5000' }, DAYS_RULES.export)).toBe(3650);
    expect(parseDays({ days: '99999999999999999999' }, DAYS_RULES.export)).toBe(3650);
    expect(parseDays({ days: '0' }, DAYS_RULES.accuracy)).toBe(1);
    expect(parseDays({ days: '400' }, DAYS_RULES.accuracy)).toBe(365);
    expect(parseDays({ days: '90' }, DAYS_RULES.accuracy)).toBe(90);
  });

  it('answers 400 invalid_query for garbage on every endpoint, clamping ones included', () => {
    for (const days of ['abc', '1.5', '1e3', '0x10', '+5', '5 days', 'NaN', 'Infinity']) {
      for (const rule of Object.values(DAYS_RULES)) {
        const err = rejection(() => parseDays({ days }, rule));
        expect(err.code).toBe('invalid_query');
        expect(err.message).toContain('whole number');
        expect(err.message).toContain(JSON.stringify(days));
      }
    }
  });

  it('refuses a repeated days parameter', () => {
    const err = rejection(() => parseDays({ days: ['1', '2'] }, DAYS_RULES.history));
    expect(err.code).toBe('invalid_query');
    expect(err.message).toContain('once');
  });
});

describe('parseExportFormat', () => {
  it('defaults to csv, accepts csv and json in any case, refuses anything else', () => {
    expect(parseExportFormat({})).toBe('csv');
    expect(parseExportFormat({ format: 'JSON' })).toBe('json');
    expect(parseExportFormat({ format: 'csv' })).toBe('csv');
    const err = rejection(() => parseExportFormat({ format: 'xlsx' }));
    expect(err.code).toBe('invalid_query');
    expect(err.message).toContain('csv or json');
  });
});
