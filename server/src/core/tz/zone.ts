import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { IANAZone, Settings, Zone, type ZoneOffsetFormat, type ZoneOffsetOptions } from 'luxon';
import { parsePosixRule, parseTzif, timeTypeAt, type PosixRule, type TzifData } from './tzif';

/**
 * The luxon Zone the whole service uses for local time: backed by the
 * system's IANA zone files (see tzif.ts), so no Intl formatter is ever built.
 * Where the files are missing (no tzdata installed), luxon's own Intl-backed
 * zone is used: correct, only heavier.
 */

export const ZONEINFO_DIR = process.env.RAINCHECK_ZONEINFO_DIR ?? '/usr/share/zoneinfo';

// Without a default locale luxon asks Intl for the system's on first use, which loads ICU locale data.
Settings.defaultLocale = 'en-US';

class TzifZone extends Zone {
  private readonly rule: PosixRule | null;

  constructor(
    private readonly zoneName: string,
    private readonly data: TzifData,
  ) {
    super();
    this.rule = data.footer ? parsePosixRule(data.footer) : null;
  }

  override get type(): string {
    return 'tzif';
  }

  override get name(): string {
    return this.zoneName;
  }

  override get isUniversal(): boolean {
    return false;
  }

  override get isValid(): true {
    return true;
  }

  override offsetName(ts: number, _options: ZoneOffsetOptions): string {
    return this.typeAt(ts).abbreviation;
  }

  override formatOffset(ts: number, format: ZoneOffsetFormat): string {
    const minutes = this.offset(ts);
    const sign = minutes < 0 ? '-' : '+';
    const hh = String(Math.floor(Math.abs(minutes) / 60)).padStart(2, '0');
    const mm = String(Math.abs(minutes) % 60).padStart(2, '0');
    if (format === 'narrow') return `${sign}${Number(hh)}${mm === '00' ? '' : `:${mm}`}`;
    return format === 'techie' ? `${sign}${hh}${mm}` : `${sign}${hh}:${mm}`;
  }

  /** Minutes east of UTC at `ts` (milliseconds), as luxon asks. */
  override offset(ts: number): number {
    return this.typeAt(ts).utoff / 60;
  }

  override equals(other: Zone): boolean {
    return other.type === 'tzif' && other.name === this.zoneName;
  }

  private typeAt(ts: number) {
    return timeTypeAt(this.data, Math.floor(ts / 1000), this.rule);
  }
}

const cache = new Map<string, Zone>();

/** The zone for an IANA name (cached); an unknown name gives luxon's invalid zone. */
export function zoneFor(name: string): Zone {
  let zone = cache.get(name);
  if (!zone) {
    zone = loadTzifZone(name) ?? IANAZone.create(name);
    cache.set(name, zone);
  }
  return zone;
}

function loadTzifZone(name: string): Zone | null {
  if (!/^[A-Za-z0-9_+-]+(\/[A-Za-z0-9_+-]+)*$/.test(name)) return null;
  try {
    return new TzifZone(name, parseTzif(readFileSync(join(ZONEINFO_DIR, name))));
  } catch {
    return null;
  }
}
