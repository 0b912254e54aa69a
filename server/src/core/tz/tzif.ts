/**
 * Reads an IANA time zone from a compiled TZif file (RFC 8536), the format of
 * /usr/share/zoneinfo. Building any Intl.DateTimeFormat costs about 8 MB of
 * resident memory (ICU locale data), which is most of the idle budget; the
 * system's own zone files answer the only question we ask (the UTC offset at
 * an instant) exactly and for almost nothing.
 */

export interface LocalTimeType {
  /** Seconds east of UTC. */
  utoff: number;
  isDst: boolean;
  abbreviation: string;
}

export interface TzifData {
  transitions: number[];
  /** Index into `types` for each transition. */
  typeIndex: number[];
  types: LocalTimeType[];
  /** The POSIX TZ rule for instants after the last transition ('' when none). */
  footer: string;
}

export class TzifError extends Error {}

export function parseTzif(buffer: Buffer): TzifData {
  if (buffer.toString('latin1', 0, 4) !== 'TZif') throw new TzifError('not a TZif file');
  const version = buffer[4] === 0 ? 1 : Number.parseInt(String.fromCharCode(buffer[4] ?? 0x31), 10);
  const first = readBlock(buffer, 0, 4);
  if (version < 2) return { ...first.data, footer: '' };
  const second = readBlock(buffer, first.end, 8);
  const footerStart = second.end + 1;
  const footerEnd = buffer.indexOf(0x0a, footerStart);
  const footer = footerEnd > footerStart ? buffer.toString('latin1', footerStart, footerEnd) : '';
  return { ...second.data, footer };
}

function readBlock(
  buffer: Buffer,
  start: number,
  timeSize: 4 | 8,
): { data: Omit<TzifData, 'footer'>; end: number } {
  const count = (i: number) => buffer.readUInt32BE(start + 20 + i * 4);
  const [isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt] = [0, 1, 2, 3, 4, 5].map(count) as number[];
  let at = start + 44;
  const transitions: number[] = [];
  for (let i = 0; i < timecnt!; i += 1, at += timeSize) {
    transitions.push(timeSize === 8 ? Number(buffer.readBigInt64BE(at)) : buffer.readInt32BE(at));
  }
  const typeIndex = [...buffer.subarray(at, at + timecnt!)];
  at += timecnt!;
  const raw: { utoff: number; isDst: boolean; abbrIndex: number }[] = [];
  for (let i = 0; i < typecnt!; i += 1, at += 6) {
    raw.push({ utoff: buffer.readInt32BE(at), isDst: buffer[at + 4] === 1, abbrIndex: buffer[at + 5] ?? 0 });
  }
  const chars = buffer.toString('latin1', at, at + charcnt!);
  at += charcnt! + leapcnt! * (timeSize + 4) + isstdcnt! + isutcnt!;
  const types = raw.map((t) => ({
    utoff: t.utoff,
    isDst: t.isDst,
    abbreviation: chars.slice(t.abbrIndex, chars.indexOf('\0', t.abbrIndex)),
  }));
  return { data: { transitions, typeIndex, types }, end: at };
}

/** The local time type in force at `epochSeconds`. */
export function timeTypeAt(
  data: TzifData,
  epochSeconds: number,
  footerRule: PosixRule | null,
): LocalTimeType {
  const { transitions, typeIndex, types } = data;
  const last = transitions[transitions.length - 1];
  if (footerRule && (last === undefined || epochSeconds >= last))
    return posixTypeAt(footerRule, epochSeconds);
  if (last === undefined || epochSeconds < (transitions[0] as number)) return types[0] as LocalTimeType;
  let lo = 0;
  let hi = transitions.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((transitions[mid] as number) <= epochSeconds) lo = mid;
    else hi = mid - 1;
  }
  return types[typeIndex[lo] as number] as LocalTimeType;
}

/** A POSIX TZ rule such as `EST5EDT,M3.2.0,M11.1.0` or `<+0330>-3:30`. */
export interface PosixRule {
  std: LocalTimeType;
  dst: LocalTimeType | null;
  start: RuleDate | null;
  end: RuleDate | null;
}

interface RuleDate {
  kind: 'M' | 'J' | 'n';
  month: number;
  week: number;
  weekday: number;
  day: number;
  /** Local wall-clock seconds after midnight when the change happens (may be negative or over 24 h). */
  time: number;
}

export function parsePosixRule(text: string): PosixRule | null {
  let rest = text;
  const take = (pattern: RegExp): string | null => {
    const match = pattern.exec(rest);
    if (!match) return null;
    rest = rest.slice(match[0].length);
    return match[1] ?? match[0];
  };
  const name = () => take(/^<([^>]+)>/) ?? take(/^[A-Za-z]{3,}/);
  const stdName = name();
  const stdOffset = take(/^[+-]?\d{1,3}(?::\d{1,2}){0,2}/);
  if (stdName === null || stdOffset === null) return null;
  const std = { utoff: westToEast(stdOffset), isDst: false, abbreviation: stdName };
  const dstName = name();
  if (dstName === null) return rest === '' ? { std, dst: null, start: null, end: null } : null;
  const dstOffset = take(/^[+-]?\d{1,3}(?::\d{1,2}){0,2}/);
  const dst = {
    utoff: dstOffset === null ? std.utoff + 3600 : westToEast(dstOffset),
    isDst: true,
    abbreviation: dstName,
  };
  const start = take(/^,[^,]+/);
  const end = take(/^,[^,]+/);
  if (!start || !end || rest !== '') return null;
  const startDate = parseRuleDate(start.slice(1));
  const endDate = parseRuleDate(end.slice(1));
  return startDate && endDate ? { std, dst, start: startDate, end: endDate } : null;
}

/** POSIX offsets count hours west of UTC; ours count seconds east (and never -0). */
function westToEast(hms: string): number {
  return -seconds(hms) || 0;
}

function seconds(hms: string): number {
  const sign = hms.startsWith('-') ? -1 : 1;
  const [h = 0, m = 0, s = 0] = hms.replace(/^[+-]/, '').split(':').map(Number);
  return sign * (h * 3600 + m * 60 + s);
}

function parseRuleDate(text: string): RuleDate | null {
  const [date, time] = text.split('/');
  const at = time === undefined ? 7200 : seconds(time);
  const m = /^M(\d{1,2})\.(\d)\.(\d)$/.exec(date ?? '');
  if (m)
    return { kind: 'M', month: Number(m[1]), week: Number(m[2]), weekday: Number(m[3]), day: 0, time: at };
  const j = /^J(\d{1,3})$/.exec(date ?? '');
  if (j) return { kind: 'J', month: 0, week: 0, weekday: 0, day: Number(j[1]), time: at };
  const n = /^(\d{1,3})$/.exec(date ?? '');
  if (n) return { kind: 'n', month: 0, week: 0, weekday: 0, day: Number(n[1]), time: at };
  return null;
}

const DAY = 86400;

/** UTC epoch of local midnight of the rule's date in `year` (as a UTC calendar date). */
function ruleDayEpoch(rule: RuleDate, year: number): number {
  const jan1 = Date.UTC(year, 0, 1) / 1000;
  if (rule.kind === 'n') return jan1 + rule.day * DAY;
  if (rule.kind === 'J') {
    const leapShift = isLeap(year) && rule.day >= 60 ? 1 : 0;
    return jan1 + (rule.day - 1 + leapShift) * DAY;
  }
  const firstOfMonth = Date.UTC(year, rule.month - 1, 1) / 1000;
  const firstWeekday = new Date(firstOfMonth * 1000).getUTCDay();
  let day = 1 + ((rule.weekday - firstWeekday + 7) % 7) + (rule.week - 1) * 7;
  const daysInMonth = new Date(Date.UTC(year, rule.month, 0)).getUTCDate();
  while (day > daysInMonth) day -= 7;
  return firstOfMonth + (day - 1) * DAY;
}

function isLeap(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

export function posixTypeAt(rule: PosixRule, epochSeconds: number): LocalTimeType {
  if (!rule.dst || !rule.start || !rule.end) return rule.std;
  const year = new Date((epochSeconds + rule.std.utoff) * 1000).getUTCFullYear();
  // DST starts at a wall-clock time in standard time and ends at one in daylight time.
  const start = ruleDayEpoch(rule.start, year) + rule.start.time - rule.std.utoff;
  const end = ruleDayEpoch(rule.end, year) + rule.end.time - rule.dst.utoff;
  const inDst =
    start < end
      ? epochSeconds >= start && epochSeconds < end
      : !(epochSeconds >= end && epochSeconds < start);
  return inDst ? rule.dst : rule.std;
}
