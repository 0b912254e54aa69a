/**
 * Dates of the proleptic Gregorian calendar as YYYY-MM-DD strings and day
 * numbers (days since 1970-01-01), in plain integer arithmetic (pure, no Date,
 * no luxon): the local calendar's day sums and the date of a shifted instant.
 */

/**
 * `date` plus `days` (an integer) calendar days. Calendar arithmetic is the
 * same in every zone, so it is done on day numbers (no DST) rather than
 * through luxon, whose microseconds per sum added up: a recompute asks for
 * about a hundred. Throws a RangeError for anything but a real YYYY-MM-DD date.
 */
export function addCalendarDays(date: string, days: number): string {
  let byOffset = sums.get(date);
  if (!byOffset) {
    if (sums.size >= DATES_KEPT) sums.clear();
    sums.set(date, (byOffset = new Map()));
  }
  let sum = byOffset.get(days);
  if (sum === undefined) byOffset.set(days, (sum = computeCalendarSum(date, days)));
  return sum;
}

/*
 * Sums already done, by date then offset. A recompute asks for the same few
 * hundred sums (every zone, plan day and rule), and building each answer's
 * string again was a tenth of the idle service's garbage. Pure, so a
 * remembered sum is the sum; bounded, cleared whole when full.
 */
const DATES_KEPT = 1024;
const sums = new Map<string, Map<number, string>>();

function computeCalendarSum(date: string, days: number): string {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  const civil = match ? { y: Number(match[1]), m: Number(match[2]), d: Number(match[3]) } : null;
  if (!civil || civil.m < 1 || civil.m > 12 || civil.d < 1 || civil.d > daysInMonth(civil.y, civil.m)) {
    throw new RangeError(`expected a YYYY-MM-DD date, got ${JSON.stringify(date)}`);
  }
  return isoDate(civilFromDays(daysFromCivil(civil) + days));
}

/** The date of a day number (days since 1970-01-01), formatted as luxon's `toISODate()`. */
export function isoDateOfDay(day: number): string {
  return isoDate(civilFromDays(day));
}

interface Civil {
  y: number;
  m: number;
  d: number;
}

// Proleptic Gregorian day numbers (days since 1970-01-01), after H. Hinnant's `days_from_civil`.
function daysFromCivil({ y, m, d }: Civil): number {
  const year = m <= 2 ? y - 1 : y;
  const era = Math.floor(year / 400);
  const yoe = year - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  return era * 146_097 + yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy - 719_468;
}

function civilFromDays(days: number): Civil {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const m = mp < 10 ? mp + 3 : mp - 9;
  return { y: yoe + era * 400 + (m <= 2 ? 1 : 0), m, d: doy - Math.floor((153 * mp + 2) / 5) + 1 };
}

function daysInMonth(y: number, m: number): number {
  return (
    daysFromCivil(m === 12 ? { y: y + 1, m: 1, d: 1 } : { y, m: m + 1, d: 1 }) - daysFromCivil({ y, m, d: 1 })
  );
}

/** luxon's `toISODate()` format: a sign and six digits for years outside 0..9999. */
function isoDate({ y, m, d }: Civil): string {
  const long = y > 9999 || y < 0;
  const year = `${y < 0 ? '-' : long ? '+' : ''}${String(Math.abs(y)).padStart(long ? 6 : 4, '0')}`;
  return `${year}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}
