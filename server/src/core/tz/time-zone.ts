import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  parsePosixRule,
  parseTzif,
  timeTypeAt,
  type LocalTimeType,
  type PosixRule,
  type TzifData,
} from './tzif';

/**
 * An IANA time zone as the service's local-time code asks it: its UTC offset
 * at an instant, read from the system's zone files (tzif.ts), without luxon
 * and without building an Intl.DateTimeFormat. Where no file answers (no
 * tzdata installed, or a name that is not a file), luxon's Intl-backed zone
 * is loaded then and answers instead, validity included, exactly as the
 * luxon zone of `zone.ts` falls back.
 */
export interface TimeZone {
  readonly name: string;
  /** False for a name no zone file nor ICU knows; its offsets are NaN. */
  readonly isValid: boolean;
  /** Minutes east of UTC at `ms` (epoch milliseconds), luxon's unit. */
  offset(ms: number): number;
}

export const ZONEINFO_DIR = process.env.RAINCHECK_ZONEINFO_DIR ?? '/usr/share/zoneinfo';

/** A zone read from its TZif file. */
export class TzifTimeZone implements TimeZone {
  readonly isValid = true;
  private readonly rule: PosixRule | null;

  constructor(
    readonly name: string,
    private readonly data: TzifData,
  ) {
    this.rule = data.footer ? parsePosixRule(data.footer) : null;
  }

  offset(ms: number): number {
    return this.typeAt(ms).utoff / 60;
  }

  /** The local time type (offset, DST flag, abbreviation) in force at `ms`. */
  typeAt(ms: number): LocalTimeType {
    return timeTypeAt(this.data, Math.floor(ms / 1000), this.rule);
  }
}

const cache = new Map<string, TimeZone>();

/** The zone for an IANA name (cached); an unknown name gives a zone whose `isValid` is false. */
export function timeZone(name: string): TimeZone {
  let zone = cache.get(name);
  if (!zone) {
    zone = tzifTimeZone(name) ?? icuTimeZone(name);
    cache.set(name, zone);
  }
  return zone;
}

/** The zone read from `name`'s TZif file, or null when there is no such readable file. */
export function tzifTimeZone(name: string): TzifTimeZone | null {
  if (!/^[A-Za-z0-9_+-]+(\/[A-Za-z0-9_+-]+)*$/.test(name)) return null;
  try {
    return new TzifTimeZone(name, parseTzif(readFileSync(join(ZONEINFO_DIR, name))));
  } catch {
    return null;
  }
}

// Only without zone files: luxon (and ICU) load on this first use, never at an ordinary boot.
function icuTimeZone(name: string): TimeZone {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { IANAZone } = require('luxon') as typeof import('luxon');
  return IANAZone.create(name);
}
