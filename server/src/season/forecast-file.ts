import { z } from 'zod';

/**
 * Issued forecasts for a season replay (`--forecast-file FILE.jsonl`): one
 * JSON line per issue date and target date,
 * `{"issued":"YYYY-MM-DD","target":"YYYY-MM-DD","precip_mm":N|null,"precip_probability":0..100|null}`
 * with optional `tmax_c` / `tmin_c` (absent: the weather file's values).
 * Leads (target - issued) run 0..6. A date with no line issued is a day the
 * provider could not be reached (season-weather.ts keeps the last forecast).
 * Bad lines fail the whole file with the line number: a replay never runs on
 * a forecast it half understood.
 */

export const MAX_LEAD_DAYS = 6;

export interface IssuedDay {
  issued: string;
  target: string;
  precip_mm: number | null;
  precip_probability: number | null;
  /** Absent: the weather file's value is the forecast's. */
  tmax_c?: number | null;
  tmin_c?: number | null;
}

export class ForecastFileError extends Error {}

const isoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be YYYY-MM-DD')
  .refine((s) => !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && dayNumber(s) !== null, 'is not a date');

const lineSchema = z
  .object({
    issued: isoDate,
    target: isoDate,
    precip_mm: z.number().finite().min(0).nullable(),
    precip_probability: z.number().finite().min(0).max(100).nullable(),
    tmax_c: z.number().finite().min(-90).max(70).nullable().optional(),
    tmin_c: z.number().finite().min(-90).max(70).nullable().optional(),
  })
  .strict();

/** The forecasts of a file, by issue date then target date. */
export class IssuedForecasts {
  private readonly byIssue = new Map<string, Map<string, IssuedDay>>();
  private readonly issueDates: string[];

  constructor(days: readonly IssuedDay[]) {
    for (const d of days) {
      const issue = this.byIssue.get(d.issued) ?? new Map<string, IssuedDay>();
      issue.set(d.target, d);
      this.byIssue.set(d.issued, issue);
    }
    this.issueDates = [...this.byIssue.keys()].sort();
  }

  /** The latest issue date on or before `date` (what the service last fetched), or null. */
  lastIssueOnOrBefore(date: string): string | null {
    let found: string | null = null;
    for (const d of this.issueDates) {
      if (d > date) break;
      found = d;
    }
    return found;
  }

  /** The targets issued on `issued`, in date order. */
  issuedOn(issued: string): IssuedDay[] {
    return [...(this.byIssue.get(issued)?.values() ?? [])].sort((a, b) => (a.target < b.target ? -1 : 1));
  }

  /** The line issued on `date` for `date` itself (lead 0): the model's own view of that day, or null. */
  sameDay(date: string): IssuedDay | null {
    return this.byIssue.get(date)?.get(date) ?? null;
  }

  lines(): IssuedDay[] {
    return this.issueDates.flatMap((d) => this.issuedOn(d));
  }
}

export function parseForecastFile(text: string): IssuedForecasts {
  const days: IssuedDay[] = [];
  const seen = new Set<string>();
  text.split(/\r?\n/).forEach((raw, i) => {
    const lineNo = i + 1;
    if (raw.trim() === '') return;
    const day = parseLine(raw, lineNo);
    const key = `${day.issued}/${day.target}`;
    if (seen.has(key))
      throw new ForecastFileError(
        `forecast file line ${lineNo}: a second line issued ${day.issued} for ${day.target}`,
      );
    seen.add(key);
    days.push(day);
  });
  if (days.length === 0) throw new ForecastFileError('forecast file has no forecast lines');
  return new IssuedForecasts(days);
}

function parseLine(raw: string, lineNo: number): IssuedDay {
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new ForecastFileError(`forecast file line ${lineNo}: not a JSON object`);
  }
  const parsed = lineSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? `${issue.path.join('.')} ` : '';
    throw new ForecastFileError(`forecast file line ${lineNo}: ${where}${issue?.message ?? 'invalid'}`);
  }
  const day = parsed.data;
  const lead = (dayNumber(day.target) as number) - (dayNumber(day.issued) as number);
  if (lead < 0 || lead > MAX_LEAD_DAYS)
    throw new ForecastFileError(
      `forecast file line ${lineNo}: target ${day.target} is ${lead} days after issue ${day.issued} (leads run 0..${MAX_LEAD_DAYS})`,
    );
  return day;
}

/** Days since 1970-01-01 of a calendar date; null when the date does not exist (2022-02-30). */
export function dayNumber(date: string): number | null {
  const ms = Date.parse(`${date}T00:00:00Z`);
  if (Number.isNaN(ms) || new Date(ms).toISOString().slice(0, 10) !== date) return null;
  return Math.round(ms / 86_400_000);
}

export function leadDays(issued: string, target: string): number {
  return (dayNumber(target) as number) - (dayNumber(issued) as number);
}
