import { DateTime } from 'luxon';
import { zoneFor } from '../../../server/src/core/tz/zone';
import { addCalendarDays } from '../../../server/src/irrigation/skip/civil-date';
import { localCalendar } from '../../../server/src/irrigation/skip/local-days';

/**
 * The local calendar's dates and day sums are integer arithmetic (speed: a
 * recompute asks for hundreds); luxon is the reference they are held to,
 * across DST changes, half-hour and 45-minute offsets, leap days and far
 * years.
 */

const ZONES = [
  'America/New_York',
  'America/Santiago', // DST changes at midnight
  'Australia/Lord_Howe', // half-hour DST
  'Asia/Kolkata',
  'Pacific/Chatham', // +12:45 / +13:45
  'Europe/London',
  'UTC',
];

const luxonDate = (epoch: number, timezone: string): string =>
  DateTime.fromSeconds(epoch, { zone: zoneFor(timezone) }).toISODate() ?? '';

describe('localCalendar dateOf', () => {
  it.each(ZONES)('gives the local date luxon gives, every 49 hours 13 minutes over 1950..2100 (%s)', (tz) => {
    const cal = localCalendar(tz, 1_750_000_000);
    const mismatches: string[] = [];
    for (let epoch = -631_152_000; epoch < 4_102_444_800; epoch += 49 * 3600 + 13 * 60 + 0.25) {
      const expected = luxonDate(epoch, tz);
      if (cal.dateOf(epoch) !== expected) mismatches.push(`${epoch}: ${cal.dateOf(epoch)} != ${expected}`);
    }
    expect(mismatches.slice(0, 5)).toEqual([]);
  });

  it('answers each side of a local midnight and of a DST change', () => {
    const cal = localCalendar('America/New_York', 1_750_000_000);
    const midnight = DateTime.fromISO('2025-03-09', { zone: 'America/New_York' }).toSeconds();
    expect([cal.dateOf(midnight - 1), cal.dateOf(midnight)]).toEqual(['2025-03-08', '2025-03-09']);
    const fallBack = DateTime.fromISO('2025-11-02T01:30', { zone: 'America/New_York' }).toSeconds();
    expect([cal.dateOf(fallBack), cal.dateOf(fallBack + 3600)]).toEqual(['2025-11-02', '2025-11-02']);
  });

  it('gives the empty date luxon gives for an instant outside its range', () => {
    const cal = localCalendar('Europe/London', 1_750_000_000);
    for (const epoch of [Number.NaN, Infinity, 8.64e12 + 1, -8.64e12 - 1, 8.64e12, -8.64e12]) {
      expect([epoch, cal.dateOf(epoch)]).toEqual([epoch, luxonDate(epoch, 'Europe/London')]);
    }
  });
});

describe('localCalendar addDays', () => {
  it('sums calendar days as luxon does, from every 11th day of 1890..2110', () => {
    const zone = zoneFor('America/New_York');
    const cal = localCalendar('America/New_York', 1_750_000_000);
    const mismatches: string[] = [];
    for (
      let base = DateTime.fromISO('1890-01-01', { zone });
      base.year < 2110;
      base = base.plus({ days: 11 })
    ) {
      const date = base.toISODate() as string;
      for (const days of [-400, -31, -7, -1, 0, 1, 2, 6, 29, 366]) {
        const expected = base.startOf('day').plus({ days }).toISODate();
        if (cal.addDays(date, days) !== expected) mismatches.push(`${date} ${days}`);
      }
    }
    expect(mismatches.slice(0, 5)).toEqual([]);
  });

  it('crosses leap days, month and year ends, and years beyond four digits', () => {
    expect(addCalendarDays('2024-02-28', 1)).toBe('2024-02-29');
    expect(addCalendarDays('2100-02-28', 1)).toBe('2100-03-01');
    expect(addCalendarDays('2000-02-28', 1)).toBe('2000-02-29');
    expect(addCalendarDays('2025-12-31', 1)).toBe('2026-01-01');
    expect(addCalendarDays('2025-03-01', -1)).toBe('2025-02-28');
    expect(addCalendarDays('9999-12-31', 1)).toBe(
      DateTime.fromISO('9999-12-31', { zone: 'UTC' }).plus({ days: 1 }).toISODate(),
    );
    expect(addCalendarDays('0000-01-01', -1)).toBe(
      DateTime.fromISO('0000-01-01', { zone: 'UTC' }).minus({ days: 1 }).toISODate(),
    );
  });

  it.each(['2025-02-29', '2025-04-31', '2025-13-01', '2025-00-10', '2025-01-00', '2025-2-3', '', 'today'])(
    'refuses %j as luxon does',
    (date) => {
      expect(DateTime.fromISO(date).isValid && /^\d{4}-\d{2}-\d{2}$/.test(date)).toBe(false);
      expect(() => localCalendar('UTC', 0).addDays(date, 1)).toThrow(
        new RangeError(`expected a YYYY-MM-DD date, got ${JSON.stringify(date)}`),
      );
    },
  );
});
