/** Time zones as the browser sees them (pure: no Preact). See yard-time.ts for the yard's zone. */

export function browserZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** True when times in `zone` read differently from the browser's clock (so they need a label). */
export function differsFromBrowser(zone: string | undefined): boolean {
  if (!zone) return false;
  const at = new Date();
  const offset = (timeZone: string) =>
    new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' })
      .formatToParts(at)
      .find((part) => part.type === 'timeZoneName')?.value;
  return zone !== browserZone() && offset(zone) !== offset(browserZone());
}

export function validZone(zone: string | null | undefined): string | null {
  if (!zone) return null;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return zone;
  } catch {
    return null;
  }
}

export interface WallTime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

/** The wall-clock time of an instant in `zone` (the browser's when undefined). */
export function wallTime(epochSeconds: number, zone?: string): WallTime {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(epochSeconds * 1000));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? NaN);
  return {
    year: get('year'),
    month: get('month'),
    day: get('day'),
    hour: get('hour'),
    minute: get('minute'),
    second: get('second'),
  };
}

/** The instant a wall-clock time in `zone` names (in a DST gap, the later reading; in an overlap, the first). */
export function epochOfWallTime(t: WallTime, zone?: string): number {
  const asUtc = Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second) / 1000;
  const offsetAt = (epoch: number) => {
    const w = wallTime(epoch, zone);
    return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) / 1000 - epoch;
  };
  let epoch = asUtc - offsetAt(asUtc);
  epoch = asUtc - offsetAt(epoch);
  return epoch;
}
