import { IANAZone, Settings, Zone, type ZoneOffsetFormat, type ZoneOffsetOptions } from 'luxon';
import { tzifTimeZone, type TzifTimeZone } from './time-zone';

/**
 * A luxon Zone backed by the system's IANA zone files (time-zone.ts), so no
 * Intl formatter is ever built, for the code that still uses luxon on
 * demand (the webhook source's ISO timestamps, the season replay, tests).
 * The service's idle path uses time-zone.ts and local-time.ts instead.
 * Where the files are missing (no tzdata installed), luxon's own Intl-backed
 * zone is used: correct, only heavier.
 */

export { ZONEINFO_DIR } from './time-zone';

// Without a default locale luxon asks Intl for the system's on first use, which loads ICU locale data.
Settings.defaultLocale = 'en-US';

class TzifZone extends Zone {
  constructor(private readonly tz: TzifTimeZone) {
    super();
  }

  override get type(): string {
    return 'tzif';
  }

  override get name(): string {
    return this.tz.name;
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
    return other.type === 'tzif' && other.name === this.tz.name;
  }

  private typeAt(ts: number) {
    return this.tz.typeAt(ts);
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
  const tz = tzifTimeZone(name);
  return tz ? new TzifZone(tz) : null;
}
