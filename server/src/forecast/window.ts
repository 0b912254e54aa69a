import type { HourlyEntry } from './types';

/**
 * The forecast window (spec 2.4): one track's hourly forecast between two
 * inclusive hour starts, with coverage counts so a client can tell a dry
 * forecast from a missing one. Pure: the caller validates the bounds
 * (archive-query.ts) and supplies the track's hourly entries.
 */

const HOUR_S = 3600;

/** Spec 2.4 "Window hour": the four fields, nothing else. */
export interface WindowHour {
  time_epoch: number;
  temp_f: number | null;
  precip_in: number | null;
  /** Integer 0..100. */
  precip_probability: number | null;
}

/** Spec 2.4 "Forecast window". */
export interface ForecastWindow {
  track: string;
  model: string | null;
  provider_label: string;
  fetched_at: number | null;
  /** Seconds since `fetched_at` (0 when the fetch is stamped in the future); null without a fetch. */
  age_s: number | null;
  /** Inclusive hour starts. */
  from: number;
  to: number;
  /** Every expected hour start has an entry. Timestamps only: the counts below tell which values exist. */
  complete: boolean;
  hourly: WindowHour[];
  /** Expected hour starts that have an entry. */
  hours: number;
  /** (to - from) / 3600 + 1 */
  expected_hours: number;
  precipitation_hours: number;
  probability_hours: number;
  temperature_hours: number;
  precip_max_in: number | null;
  /** Null unless every expected hour has a precipitation amount: a gap cannot prove a dry window. */
  precip_sum_in: number | null;
  temp_max_f: number | null;
  temp_min_f: number | null;
  /** Integer 0..100. */
  pop_max_pct: number | null;
}

export interface ForecastWindowInput {
  track: string;
  model: string | null;
  providerLabel: string;
  /** Epoch seconds of the fetch the entries come from; null when the track has none yet. */
  fetchedAt: number | null;
  nowEpoch: number;
  /** The track's hourly entries, any order; entries outside [from, to] or off the hour are ignored. */
  hourly: readonly HourlyEntry[];
  from: number;
  to: number;
}

export function buildForecastWindow(input: ForecastWindowInput): ForecastWindow {
  const { from, to } = input;
  assertBounds(from, to);

  // First entry wins for a repeated hour; entries off the hour grid are not a window hour.
  const byHour = new Map<number, HourlyEntry>();
  for (const entry of input.hourly) {
    const t = entry.time_epoch;
    if (t < from || t > to || (t - from) % HOUR_S !== 0 || byHour.has(t)) continue;
    byHour.set(t, entry);
  }

  const expectedHours = (to - from) / HOUR_S + 1;
  const hourly: WindowHour[] = [];
  for (let t = from; t <= to; t += HOUR_S) {
    const entry = byHour.get(t);
    if (entry) hourly.push(windowHour(entry));
  }

  const temps = present(hourly.map((h) => h.temp_f));
  const precip = present(hourly.map((h) => h.precip_in));
  const pops = present(hourly.map((h) => h.precip_probability));

  return {
    track: input.track,
    model: input.model,
    provider_label: input.providerLabel,
    fetched_at: input.fetchedAt,
    age_s: input.fetchedAt === null ? null : Math.max(0, Math.round(input.nowEpoch - input.fetchedAt)),
    from,
    to,
    complete: hourly.length === expectedHours,
    hourly,
    hours: hourly.length,
    expected_hours: expectedHours,
    precipitation_hours: precip.length,
    probability_hours: pops.length,
    temperature_hours: temps.length,
    precip_max_in: precip.length > 0 ? Math.max(...precip) : null,
    precip_sum_in: precip.length === expectedHours ? round(sum(precip), 3) : null,
    temp_max_f: temps.length > 0 ? Math.max(...temps) : null,
    temp_min_f: temps.length > 0 ? Math.min(...temps) : null,
    pop_max_pct: pops.length > 0 ? Math.max(...pops) : null,
  };
}

/** The builder trusts validated bounds; a caller that skipped validation fails loudly, not with odd counts. */
function assertBounds(from: number, to: number): void {
  if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to) || from % HOUR_S !== 0 || to % HOUR_S !== 0) {
    throw new RangeError(`window bounds must be hour-start epochs, got ${from}..${to}`);
  }
  if (from > to) throw new RangeError(`window from ${from} is after to ${to}`);
}

function windowHour(entry: HourlyEntry): WindowHour {
  return {
    time_epoch: entry.time_epoch,
    temp_f: finite(entry.temp_f),
    precip_in: finite(entry.precip_in),
    precip_probability: percent(entry.precip_probability),
  };
}

/** NaN or an infinity is no measurement: null, never a number that poisons max/sum. */
function finite(value: number | null): number | null {
  return value !== null && Number.isFinite(value) ? value : null;
}

/** A Window hour's probability is an integer 0..100. */
function percent(value: number | null): number | null {
  const v = finite(value);
  return v === null ? null : Math.min(100, Math.max(0, Math.round(v)));
}

function present(values: (number | null)[]): number[] {
  return values.filter((v): v is number => v !== null);
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}

/** Strips float noise from a sum (0.1 + 0.2); three decimals like the daily precip_sum_in. */
function round(value: number, digits: number): number {
  return Number(value.toFixed(digits));
}
