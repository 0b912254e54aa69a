import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DateTime, IANAZone } from 'luxon';
import { ZONEINFO_DIR, zoneFor } from '../../server/src/core/tz/zone';
import { parsePosixRule, parseTzif, posixTypeAt, timeTypeAt } from '../../server/src/core/tz/tzif';

/**
 * The TZif-backed zone must agree with ICU (luxon's Intl-backed IANAZone) at
 * every instant: across DST changes, in the southern hemisphere, with
 * half-hour offsets and negative DST, and past the files' last transition
 * where the POSIX footer rule takes over.
 */

const ZONES = [
  'America/New_York',
  'America/Denver',
  'America/Phoenix',
  'Europe/Berlin',
  'Europe/Dublin',
  'Europe/London',
  'Australia/Sydney',
  'Australia/Adelaide',
  'Australia/Lord_Howe',
  'America/Santiago',
  'Asia/Kolkata',
  'Asia/Tokyo',
  'Pacific/Chatham',
  'UTC',
];

function instants(): number[] {
  const out: number[] = [];
  // Every 6 hours over 2025-2027 hits both sides of each change; spot checks reach the footer rule.
  for (let t = Date.UTC(2025, 0, 1); t < Date.UTC(2027, 11, 31); t += 6 * 3600 * 1000) out.push(t);
  for (const year of [1975, 1999, 2038, 2045, 2060]) {
    for (let month = 0; month < 12; month += 1) out.push(Date.UTC(year, month, 15, 12));
  }
  return out;
}

describe('zoneFor', () => {
  it.each(ZONES)('%s: offsets equal ICU at every sampled instant', (name) => {
    const ours = zoneFor(name);
    const icu = IANAZone.create(name);
    expect(ours.type).toBe('tzif');
    const mismatches = instants().filter((t) => ours.offset(t) !== icu.offset(t));
    expect(mismatches.map((t) => new Date(t).toISOString())).toEqual([]);
  });

  it('matches ICU at each second around the New York DST changes of 2026', () => {
    const ours = zoneFor('America/New_York');
    const icu = IANAZone.create('America/New_York');
    for (const change of [Date.UTC(2026, 2, 8, 7), Date.UTC(2026, 10, 1, 6)]) {
      for (let t = change - 2000; t <= change + 2000; t += 1000) expect(ours.offset(t)).toBe(icu.offset(t));
    }
    expect(ours.offset(Date.UTC(2026, 2, 8, 6, 59, 59))).toBe(-300);
    expect(ours.offset(Date.UTC(2026, 2, 8, 7, 0, 0))).toBe(-240);
  });

  it('gives luxon local days that change at local midnight, DST days included', () => {
    const zone = zoneFor('America/New_York');
    const justBefore = DateTime.fromISO('2026-11-01T23:59:59', { zone }).toSeconds();
    expect(DateTime.fromSeconds(justBefore, { zone }).toISODate()).toBe('2026-11-01');
    expect(DateTime.fromSeconds(justBefore + 1, { zone }).toISODate()).toBe('2026-11-02');
    // 2026-11-01 is 25 hours long there.
    const start = DateTime.fromISO('2026-11-01', { zone });
    expect(start.plus({ days: 1 }).toSeconds() - start.toSeconds()).toBe(25 * 3600);
    expect(DateTime.fromSeconds(start.toSeconds(), { zone }).toFormat('ZZ')).toBe('-04:00');
  });

  it('falls back to the Intl zone when no zone file exists, and to an invalid zone for a bad name', () => {
    expect(zoneFor('Not/AZone').isValid).toBe(false);
    expect(zoneFor('../etc/passwd').isValid).toBe(false);
  });
});

describe('parseTzif', () => {
  it('reads the 64-bit block, the types and the footer of a real zone file', () => {
    const data = parseTzif(fs.readFileSync(path.join(ZONEINFO_DIR, 'America/New_York')));
    expect(data.footer).toBe('EST5EDT,M3.2.0,M11.1.0');
    expect(data.types.map((t) => t.abbreviation)).toEqual(expect.arrayContaining(['EST', 'EDT']));
    expect(data.transitions.length).toBeGreaterThan(100);
  });

  it('uses the footer rule after the last transition of a slim file', () => {
    // A file with no transitions at all: everything comes from the footer.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tzif-'));
    const header = Buffer.alloc(44);
    header.write('TZif2', 0, 'latin1');
    header.writeUInt32BE(1, 36); // typecnt
    header.writeUInt32BE(4, 40); // charcnt
    const types = Buffer.from([0xff, 0xff, 0xb9, 0xb0, 0, 0]); // -18000, std, abbr 0
    const block = Buffer.concat([header, types, Buffer.from('EST\0', 'latin1')]);
    const file = Buffer.concat([block, block, Buffer.from('\nEST5EDT,M3.2.0,M11.1.0\n', 'latin1')]);
    fs.writeFileSync(path.join(dir, 'slim'), file);
    const data = parseTzif(fs.readFileSync(path.join(dir, 'slim')));
    const rule = parsePosixRule(data.footer);
    expect(timeTypeAt(data, Date.UTC(2031, 6, 1) / 1000, rule).utoff).toBe(-4 * 3600);
    expect(timeTypeAt(data, Date.UTC(2031, 0, 1) / 1000, rule).utoff).toBe(-5 * 3600);
  });
});

describe('parsePosixRule', () => {
  it.each([
    ['EST5EDT,M3.2.0,M11.1.0', Date.UTC(2040, 6, 1), -4 * 3600, 'EDT'],
    ['EST5EDT,M3.2.0,M11.1.0', Date.UTC(2040, 0, 1), -5 * 3600, 'EST'],
    ['CET-1CEST,M3.5.0,M10.5.0/3', Date.UTC(2040, 6, 1), 2 * 3600, 'CEST'],
    ['AEST-10AEDT,M10.1.0,M4.1.0/3', Date.UTC(2040, 0, 1), 11 * 3600, 'AEDT'],
    ['AEST-10AEDT,M10.1.0,M4.1.0/3', Date.UTC(2040, 6, 1), 10 * 3600, 'AEST'],
    ['IST-1GMT0,M10.5.0,M3.5.0/1', Date.UTC(2040, 0, 1), 0, 'GMT'],
    ['IST-1GMT0,M10.5.0,M3.5.0/1', Date.UTC(2040, 6, 1), 3600, 'IST'],
    ['<+0530>-5:30', Date.UTC(2040, 6, 1), 5.5 * 3600, '+0530'],
    ['<-03>3<-02>,M3.2.0/-2,M11.1.0/-1', Date.UTC(2040, 6, 1), -2 * 3600, '-02'],
  ])('%s at %s', (text, instantMs, utoff, abbreviation) => {
    const rule = parsePosixRule(text);
    expect(rule).not.toBeNull();
    const type = posixTypeAt(rule!, instantMs / 1000);
    expect(type.utoff).toBe(utoff);
    expect(type.abbreviation).toBe(abbreviation);
  });

  it('refuses text that is not a rule', () => {
    expect(parsePosixRule('')).toBeNull();
    expect(parsePosixRule('EST5EDT,M3.2.0')).toBeNull();
    expect(parsePosixRule('5EST')).toBeNull();
  });
});
