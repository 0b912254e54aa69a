import { LocalTime } from '../core/tz/local-time';
import { timeZone } from '../core/tz/time-zone';
import type { ArchiveRow } from '../store/forecast-archive';

/**
 * The forecast's rain skill by lead time for one calendar month (pure), from
 * the forecast archive against measured rain: per lead band, how often an
 * informative rain promise was kept (hit rate) and how much rain fell against
 * what was promised (amount bias). As `bias.ts` does, observed rain is the
 * gauge's daily total when the station measured that day, else the model's
 * own lead-0 hours (its analysis of what fell); a day with neither is left
 * out, never read as dry. The archive keeps leads up to 47 h, so the bands
 * are the same day (0-11 h), the day ahead (12-35 h) and two days ahead
 * (36-47 h). A band is trained once SKILL_MIN_DAYS informative days were
 * judged; the engine falls back to its rolling day-ahead figure before that.
 */

export const SKILL_MIN_DAYS = 8;
/** A promise is informative when its probability-weighted rain reaches this (mm). */
export const SKILL_INFORMATIVE_MM = 2;
/** A promise is kept when the measured rain reaches this share of the weighted promise (and at least 1 mm). */
export const SKILL_KEPT_SHARE = 0.25;

const MM_PER_IN = 25.4;
const BIAS_CLAMP: [number, number] = [0.25, 4];

export const LEAD_BANDS: readonly { lead_days: number; hours: [number, number] }[] = [
  { lead_days: 0, hours: [0, 11] },
  { lead_days: 1, hours: [12, 35] },
  { lead_days: 2, hours: [36, 47] },
];

export interface LeadSkill {
  lead_days: number;
  lead_hours: [number, number];
  /** Informative promises whose rain was measured. */
  promised_days: number;
  kept_days: number;
  /** (kept + 1) / (promised + 1): one prior kept promise. */
  hit_rate: number;
  /** Measured over promised rain on the informative days (clamped 0.25..4); 1 with none. */
  amount_bias: number;
  trained: boolean;
}

export interface ArchiveSkill {
  month: number;
  min_days: number;
  by_lead: LeadSkill[];
}

export interface SkillInput {
  month: number;
  timezone: string;
  /** Archive rows of the merged track whose targets fall in days of `month`. */
  rows: readonly ArchiveRow[];
  /** Gauge totals by local date (inches), only for days the gauge measured. */
  gaugeDaily: ReadonlyMap<string, number>;
}

/** Whether a promise (probability-weighted, mm) counts, and whether the measured rain kept it. */
export function judgePromise(weightedMm: number, measuredMm: number): 'uninformative' | 'kept' | 'broken' {
  if (weightedMm < SKILL_INFORMATIVE_MM) return 'uninformative';
  return measuredMm >= Math.max(1, SKILL_KEPT_SHARE * weightedMm) ? 'kept' : 'broken';
}

export function archiveSkill(input: SkillInput): ArchiveSkill {
  const zone = timeZone(input.timezone);
  const dayOf = (epoch: number) => LocalTime.fromSeconds(epoch, zone).isoDate ?? '';
  const analysis = dailyPromises(
    input.rows.filter((r) => r.lead_h === 0),
    dayOf,
  );
  const observedMm = (day: string): number | null => {
    const gauge = input.gaugeDaily.get(day);
    if (gauge !== undefined) return gauge * MM_PER_IN;
    const a = analysis.get(day);
    return a === undefined ? null : a.amount_in * MM_PER_IN;
  };
  return {
    month: input.month,
    min_days: SKILL_MIN_DAYS,
    by_lead: LEAD_BANDS.map((band) => leadSkill(band, input.rows, dayOf, observedMm)),
  };
}

function leadSkill(
  band: (typeof LEAD_BANDS)[number],
  rows: readonly ArchiveRow[],
  dayOf: (epoch: number) => string,
  observedMm: (day: string) => number | null,
): LeadSkill {
  const [lo, hi] = band.hours;
  const promises = dailyPromises(
    rows.filter((r) => r.lead_h >= lo && r.lead_h <= hi),
    dayOf,
  );
  let promised = 0;
  let kept = 0;
  let promisedMm = 0;
  let observedTotal = 0;
  for (const [day, p] of promises) {
    const measured = observedMm(day);
    if (measured === null) continue;
    const amount = p.amount_in * MM_PER_IN;
    const verdict = judgePromise(amount * ((p.pop_pct ?? 100) / 100), measured);
    if (verdict === 'uninformative') continue;
    promised += 1;
    if (verdict === 'kept') kept += 1;
    promisedMm += amount;
    observedTotal += measured;
  }
  const bias = promisedMm > 0 ? observedTotal / promisedMm : 1;
  return {
    lead_days: band.lead_days,
    lead_hours: band.hours,
    promised_days: promised,
    kept_days: kept,
    hit_rate: round((kept + 1) / (promised + 1)),
    amount_bias: round(Math.min(BIAS_CLAMP[1], Math.max(BIAS_CLAMP[0], bias))),
    trained: promised >= SKILL_MIN_DAYS,
  };
}

/**
 * Per local day: the sum over its hours of the mean forecast amount, and the
 * highest mean probability of rain. A day counts only when at least 23 of its
 * hours have an amount (a gap cannot prove a dry hour; 23 for a DST day).
 */
function dailyPromises(
  rows: readonly ArchiveRow[],
  dayOf: (epoch: number) => string,
): Map<string, { amount_in: number; pop_pct: number | null }> {
  const byHour = new Map<number, { amounts: number[]; pops: number[] }>();
  for (const row of rows) {
    if (row.precip_in === null) continue;
    const h = byHour.get(row.target_epoch) ?? { amounts: [], pops: [] };
    h.amounts.push(row.precip_in);
    if (row.pop_pct !== null) h.pops.push(row.pop_pct);
    byHour.set(row.target_epoch, h);
  }
  const days = new Map<string, { sum: number; hours: number; pop: number | null }>();
  for (const [target, h] of byHour) {
    const day = dayOf(target);
    const entry = days.get(day) ?? { sum: 0, hours: 0, pop: null };
    entry.sum += mean(h.amounts);
    entry.hours += 1;
    if (h.pops.length > 0) entry.pop = Math.max(entry.pop ?? 0, mean(h.pops));
    days.set(day, entry);
  }
  return new Map(
    [...days].filter(([, d]) => d.hours >= 23).map(([day, d]) => [day, { amount_in: d.sum, pop_pct: d.pop }]),
  );
}

function mean(xs: readonly number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
