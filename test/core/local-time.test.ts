import { DateTime } from 'luxon';
import { LocalTime } from '../../server/src/core/tz/local-time';
import { timeZone } from '../../server/src/core/tz/time-zone';
import { zoneFor } from '../../server/src/core/tz/zone';

/**
 * LocalTime must answer exactly what luxon's DateTime answered on the same
 * zone files (the oracle: luxon over `zoneFor`, what the service used before):
 * dates, day starts, day sums, wall times across spring-forward gaps and
 * fall-back overlaps, half-hour DST (Lord Howe), the southern hemisphere,
 * zones that change at midnight (Santiago, Havana, Azores, Beirut), with the
 * real clock (luxon's guess for a repeated wall time) faked to summer and to
 * winter.
 */

const ZONES = [
  'America/Denver',
  'America/New_York',
  'America/Phoenix',
  'Europe/Berlin',
  'Europe/Dublin',
  'Australia/Sydney',
  'Australia/Lord_Howe',
  'America/Santiago',
  'America/Havana',
  'Atlantic/Azores',
  'Asia/Beirut',
  'Pacific/Chatham',
  'Asia/Kolkata',
  'UTC',
];

/** The real clock luxon reads for its first guess: a northern summer and a northern winter. */
const NOWS = [Date.UTC(2026, 6, 1, 12), Date.UTC(2026, 0, 15, 12)];

const DAY_MS = 86_400_000;

function dates(fromYear: number, toYear: number): string[] {
  const out: string[] = [];
  for (let t = Date.UTC(fromYear, 0, 1); t < Date.UTC(toYear + 1, 0, 1); t += DAY_MS) {
    out.push(new Date(t).toISOString().slice(0, 10));
  }
  return out;
}

/** Dates on which the zone's offset changes (and their neighbours), where the DST rules bite. */
function changeDates(name: string): string[] {
  const zone = zoneFor(name);
  const noon = (d: string) => zone.offset(Date.parse(`${d}T12:00:00Z`));
  const changes = dates(2026, 2027).filter((d) => noon(d) !== noon(shift(d, -1)));
  return [...new Set(changes.flatMap((d) => [-1, 0, 1].map((k) => shift(d, k))))];
}

const shift = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);

/** The observable state of a luxon DateTime and of a LocalTime, side by side. */
function luxonState(dt: DateTime) {
  return {
    valid: dt.isValid,
    seconds: dt.toSeconds(),
    offset: dt.isValid ? dt.offset : NaN,
    date: dt.toISODate(),
    fields: [dt.year, dt.month, dt.day, dt.hour, dt.minute, dt.second],
    weekday: dt.weekday,
  };
}

function ourState(t: LocalTime) {
  return {
    valid: t.isValid,
    seconds: t.seconds,
    offset: t.offset,
    date: t.isoDate,
    fields: [t.year, t.month, t.day, t.hour, t.minute, t.second],
    weekday: t.weekday,
  };
}

afterEach(() => {
  jest.useRealTimers();
});

describe('LocalTime against luxon', () => {
  it.each(ZONES)("%s: an instant's date, fields, offset, weekday and formats", (name) => {
    const zone = zoneFor(name);
    const tz = timeZone(name);
    const mismatches: string[] = [];
    // Every 97 minutes over two years lands on every hour and both sides of each change.
    for (let ms = Date.UTC(2026, 0, 1); ms < Date.UTC(2028, 0, 1); ms += 97 * 60_000 + 13_500) {
      const seconds = ms / 1000;
      const dt = DateTime.fromSeconds(seconds, { zone });
      const ours = LocalTime.fromSeconds(seconds, tz);
      const want = {
        ...luxonState(dt),
        short: dt.toFormat('ccc LLL d, HH:mm'),
        iso: dt.toISO({ suppressMilliseconds: true }),
        dayStart: dt.startOf('day').toSeconds(),
      };
      const got = {
        ...ourState(ours),
        short: ours.formatShort(),
        iso: ours.isoWithOffset(),
        dayStart: ours.startOfDay().seconds,
      };
      if (JSON.stringify(got) !== JSON.stringify(want)) mismatches.push(`${seconds}: ${JSON.stringify(got)}`);
    }
    expect(mismatches).toEqual([]);
  });

  describe.each(NOWS.map((now) => [new Date(now).toISOString().slice(0, 10), now]))(
    'with the real clock at %s',
    (_label, now) => {
      it.each(ZONES)("%s: every date's midnight, next midnight and day sums", (name) => {
        jest.useFakeTimers({ now: now as number });
        const zone = zoneFor(name);
        const tz = timeZone(name);
        const mismatches: string[] = [];
        for (const date of dates(2026, 2027)) {
          const dt = DateTime.fromISO(date, { zone });
          const ours = LocalTime.fromIsoDate(date, tz);
          const want = [
            luxonState(dt),
            luxonState(dt.startOf('day')),
            luxonState(dt.startOf('day').plus({ days: 1 })),
            luxonState(dt.plus({ days: 1 }).startOf('day')),
            luxonState(dt.minus({ days: 40 })),
            luxonState(dt.plus({ months: 1 })),
            luxonState(dt.set({ hour: 12 })),
          ];
          const got = [
            ourState(ours),
            ourState(ours.startOfDay()),
            ourState(ours.startOfDay().plus({ days: 1 })),
            ourState(ours.plus({ days: 1 }).startOfDay()),
            ourState(ours.plus({ days: -40 })),
            ourState(ours.plus({ months: 1 })),
            ourState(ours.set({ hour: 12 })),
          ];
          if (JSON.stringify(got) !== JSON.stringify(want))
            mismatches.push(`${date}: ${JSON.stringify(got)}`);
        }
        expect(mismatches).toEqual([]);
      });

      it.each(ZONES)('%s: wall times every 15 minutes of the days around each DST change', (name) => {
        jest.useFakeTimers({ now: now as number });
        const zone = zoneFor(name);
        const tz = timeZone(name);
        const mismatches: string[] = [];
        for (const date of changeDates(name)) {
          const midnight = DateTime.fromISO(date, { zone });
          const ours = LocalTime.fromIsoDate(date, tz);
          const [year, month, day] = date.split('-').map(Number) as [number, number, number];
          for (let minutes = 0; minutes <= 24 * 60; minutes += 15) {
            const hour = Math.floor(minutes / 60);
            const minute = minutes % 60;
            const want = [
              luxonState(midnight.set({ hour, minute })),
              luxonState(midnight.plus({ days: 1 }).set({ hour, minute })),
              luxonState(DateTime.fromObject({ year, month, day, hour, minute, second: 30 }, { zone })),
              luxonState(DateTime.fromISO(`${date}T${pad(hour)}:${pad(minute)}`, { zone })),
              luxonState(midnight.plus({ minutes })),
            ];
            const got = [
              ourState(ours.set({ hour, minute })),
              ourState(ours.plus({ days: 1 }).set({ hour, minute })),
              ourState(LocalTime.fromFields({ year, month, day, hour, minute, second: 30 }, tz)),
              ourState(LocalTime.fromFields({ year, month, day, hour, minute }, tz)),
              ourState(ours.plus({ minutes })),
            ];
            if (JSON.stringify(got) !== JSON.stringify(want))
              mismatches.push(`${date} +${minutes} min: ${JSON.stringify(got)} want ${JSON.stringify(want)}`);
          }
        }
        expect(
          changeDates(name).length > 0 || ['America/Phoenix', 'Asia/Kolkata', 'UTC'].includes(name),
        ).toBe(true);
        expect(mismatches).toEqual([]);
      });
    },
  );

  it("a repeated wall time takes the occurrence of the real clock's offset, as luxon does", () => {
    // Atlantic/Azores falls back from 01:00 to 00:00 on 2026-10-25: its midnight happens twice.
    const tz = timeZone('Atlantic/Azores');
    jest.useFakeTimers({ now: Date.UTC(2026, 6, 1) });
    const summer = LocalTime.fromIsoDate('2026-10-25', tz);
    jest.useFakeTimers({ now: Date.UTC(2026, 0, 15) });
    const winter = LocalTime.fromIsoDate('2026-10-25', tz);
    expect(summer.isoWithOffset()).toBe('2026-10-25T00:00:00+00:00');
    expect(winter.isoWithOffset()).toBe('2026-10-25T00:00:00-01:00');
    expect(winter.seconds - summer.seconds).toBe(3600);
  });

  it('named DST cases: Denver spring gap, Berlin fall overlap, Lord Howe half hour, Santiago midnight gap', () => {
    jest.useFakeTimers({ now: Date.UTC(2026, 0, 15) });
    const denver = LocalTime.fromIsoDate('2026-03-08', timeZone('America/Denver'));
    expect(denver.set({ hour: 2, minute: 30 }).isoWithOffset()).toBe('2026-03-08T03:30:00-06:00');
    expect(denver.plus({ days: 1 }).seconds - denver.seconds).toBe(23 * 3600);
    const berlin = LocalTime.fromIsoDate('2026-10-25', timeZone('Europe/Berlin'));
    expect(berlin.set({ hour: 2, minute: 30 }).isoWithOffset()).toBe('2026-10-25T02:30:00+02:00');
    expect(berlin.plus({ days: 1 }).seconds - berlin.seconds).toBe(25 * 3600);
    const lordHowe = LocalTime.fromIsoDate('2026-10-04', timeZone('Australia/Lord_Howe'));
    expect(lordHowe.set({ hour: 2, minute: 15 }).isoWithOffset()).toBe('2026-10-04T02:45:00+11:00');
    expect(lordHowe.plus({ days: 1 }).seconds - lordHowe.seconds).toBe(23.5 * 3600);
    const santiago = LocalTime.fromIsoDate('2026-09-06', timeZone('America/Santiago'));
    expect(santiago.isoWithOffset()).toBe('2026-09-06T01:00:00-03:00');
    // luxon keeps the wall time it landed on: the next "midnight" of such a day is 01:00 too.
    expect(santiago.plus({ days: 1 }).isoWithOffset()).toBe('2026-09-07T01:00:00-03:00');
  });

  it('invalid input is invalid, as in luxon', () => {
    const tz = timeZone('America/Denver');
    for (const date of ['2026-02-30', '2026-13-01', '2026-6-1', '', '20260601']) {
      const ours = LocalTime.fromIsoDate(date, tz);
      expect([date, ours.isValid, ours.isoDate, ours.seconds]).toEqual([date, false, null, NaN]);
      expect(ours.plus({ days: 1 }).isValid).toBe(false);
      expect(ours.startOfDay().set({ hour: 3 }).seconds).toBeNaN();
    }
    const fields = { year: 2026, month: 6, day: 1 };
    for (const time of [
      { hour: 24, minute: 1 },
      { hour: 25, minute: 0 },
      { hour: 3, minute: 60 },
      { hour: 3, minute: 0, second: 60 },
      { hour: 2.5, minute: 0 },
    ]) {
      const dt = DateTime.fromObject({ ...fields, ...time }, { zone: zoneFor('America/Denver') });
      expect([time, LocalTime.fromFields({ ...fields, ...time }, tz).isValid]).toEqual([time, dt.isValid]);
    }
    const midnight = LocalTime.fromFields({ ...fields, hour: 24, minute: 0 }, tz);
    expect(midnight.isoDate).toBe('2026-06-02');

    const unknown = timeZone('Mars/Olympus_Mons');
    expect(unknown.isValid).toBe(zoneFor('Mars/Olympus_Mons').isValid);
    expect(unknown.isValid).toBe(false);
    expect(LocalTime.fromSeconds(1_750_000_000, unknown).isoDate).toBeNull();
    expect(LocalTime.fromIsoDate('2026-06-01', unknown).seconds).toBeNaN();

    for (const seconds of [8.64e12, -8.64e12 - 1, NaN, 1.6e13]) {
      const dt = DateTime.fromSeconds(seconds, { zone: zoneFor('UTC') });
      const ours = LocalTime.fromSeconds(seconds, timeZone('UTC'));
      expect([seconds, ours.isValid, ours.isoDate]).toEqual([seconds, dt.isValid, dt.toISODate()]);
    }
  });

  it('fractional seconds and far years format as luxon does', () => {
    const tz = timeZone('Europe/Berlin');
    for (const seconds of [1_750_000_000.25, -62_000_000_000, 253_402_300_800, 1_000.999]) {
      const dt = DateTime.fromSeconds(seconds, { zone: zoneFor('Europe/Berlin') });
      const ours = LocalTime.fromSeconds(seconds, tz);
      expect([ours.isoDate, ours.isoWithOffset(), ours.seconds]).toEqual([
        dt.toISODate(),
        dt.toISO({ suppressMilliseconds: true }),
        dt.toSeconds(),
      ]);
    }
  });
});

const pad = (n: number) => String(n).padStart(2, '0');
