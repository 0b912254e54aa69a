import type { DailyEntry, HourlyEntry } from '../../forecast/types';
import {
  bounded,
  exact,
  finite,
  nonNegative,
  noEvidence,
  percent,
  round,
  toEvidence,
  type Evidence,
  type EvidenceLike,
} from './evidence';
import { HOUR_S, hourStarts, indexDaily, indexHourly } from './rain-evidence';
import { heatIndexF } from '../../weather/derived';

/**
 * Temperature, wind and humidity evidence for the skip rules (pure).
 *
 * - Current readings: the live station value when the weather snapshot has one
 *   (the snapshot already nulls values without live evidence), else the
 *   forecast's current hour (a model stand-in, named `forecast`).
 * - Window extremes: the minimum temperature or maximum wind over the hours
 *   overlapping a window is exact only when every hour reports; the hours that
 *   do report bound it (the coldest reported hour bounds the minimum from
 *   above, the windiest bounds the maximum from below). A day's own
 *   `temp_min_f` / `wind_max_mph` bound a window inside that day from the other
 *   side.
 */

export type ReadingSource = 'station' | 'forecast';

export interface Reading {
  evidence: Evidence;
  source: ReadingSource | null;
}

type Pick = (entry: HourlyEntry) => number | null;

/** The station's live value, else the forecast hour holding `now`. */
export function currentReading(
  stationValue: number | null | undefined,
  hourly: readonly HourlyEntry[],
  nowEpoch: number,
  pick: Pick,
): Reading {
  const station = finite(stationValue);
  if (station !== null) return { evidence: exact(station), source: 'station' };
  const hour = indexHourly(hourly).get(Math.floor(nowEpoch / HOUR_S) * HOUR_S);
  const forecast = hour ? finite(pick(hour)) : null;
  return forecast === null
    ? { evidence: noEvidence(), source: null }
    : { evidence: exact(forecast), source: 'forecast' };
}

export const pickTemp: Pick = (h) => finite(h.temp_f);
export const pickWind: Pick = (h) => nonNegative(h.wind_mph);
export const pickHumidity: Pick = (h) => percent(h.humidity_pct);
export const pickRainRate: Pick = (h) => nonNegative(h.precip_in);

/** Minimum hourly temperature over the hours overlapping `[from, to)`. */
export function minTempOverInterval(
  hourly: readonly HourlyEntry[],
  fromEpoch: number,
  toEpoch: number,
): Evidence {
  return extremeOverHours(hourly, fromEpoch, toEpoch, pickTemp, 'min');
}

/** Maximum hourly wind over the hours overlapping `[from, to)`. */
export function maxWindOverInterval(
  hourly: readonly HourlyEntry[],
  fromEpoch: number,
  toEpoch: number,
): Evidence {
  return extremeOverHours(hourly, fromEpoch, toEpoch, pickWind, 'max');
}

/** Maximum NWS heat index over the hours overlapping `[from, to)`: exact only when every hour has temperature and humidity. */
export function maxHeatIndexOverInterval(
  hourly: readonly HourlyEntry[],
  fromEpoch: number,
  toEpoch: number,
): Evidence {
  return extremeOverHours(
    hourly,
    fromEpoch,
    toEpoch,
    (h) => {
      const t = pickTemp(h);
      const rh = pickHumidity(h);
      return t === null || rh === null ? null : heatIndexF(t, rh);
    },
    'max',
  );
}

/** Maximum of the days' `temp_max_f`. */
export function maxTempOverDays(daily: readonly DailyEntry[], dates: readonly string[]): Evidence {
  const byDate = indexDaily(daily);
  return extreme(
    dates.map((d) => finite(byDate.get(d)?.temp_max_f)),
    'max',
  );
}

/** Minimum of the days' `temp_min_f`. */
export function minTempOverDays(daily: readonly DailyEntry[], dates: readonly string[]): Evidence {
  const byDate = indexDaily(daily);
  return extreme(
    dates.map((d) => finite(byDate.get(d)?.temp_min_f)),
    'min',
  );
}

/** Maximum of the days' `wind_max_mph`. */
export function maxWindOverDays(daily: readonly DailyEntry[], dates: readonly string[]): Evidence {
  const byDate = indexDaily(daily);
  return extreme(
    dates.map((d) => nonNegative(byDate.get(d)?.wind_max_mph)),
    'max',
  );
}

/** Tightens `e` with bounds proven elsewhere (a day's low bounds a window minimum from below). */
export function withBounds(input: EvidenceLike, atLeast: number | null, atMost: number | null): Evidence {
  const e = toEvidence(input);
  if (e.value !== null) return e;
  const lo = maxOf(e.at_least, atLeast);
  const hi = minOf(e.at_most, atMost);
  // Sources that contradict each other prove nothing beyond the evidence itself.
  if (lo !== null && hi !== null && lo > hi) return e;
  return bounded(lo, hi, e.have, e.need);
}

/** The NWS heat index, from the weather domain's derived formulas (one implementation). */
export { heatIndexF };

// ---- internals ----

function extremeOverHours(
  hourly: readonly HourlyEntry[],
  fromEpoch: number,
  toEpoch: number,
  pick: Pick,
  kind: 'min' | 'max',
): Evidence {
  const byHour = indexHourly(hourly);
  return extreme(
    hourStarts(fromEpoch, toEpoch).map((t) => {
      const entry = byHour.get(t);
      return entry ? pick(entry) : null;
    }),
    kind,
  );
}

/**
 * Min or max over units: exact when all report. Otherwise the reported units
 * bound a minimum from above and a maximum from below.
 */
function extreme(values: readonly (number | null)[], kind: 'min' | 'max'): Evidence {
  const present = values.filter((v): v is number => v !== null);
  const need = values.length;
  if (need === 0) return noEvidence(0);
  if (present.length === 0) return noEvidence(need);
  const v = round(kind === 'min' ? Math.min(...present) : Math.max(...present), 2);
  if (present.length === need) return exact(v, need);
  return kind === 'min' ? bounded(null, v, present.length, need) : bounded(v, null, present.length, need);
}

function maxOf(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return Math.max(a, b);
}

function minOf(a: number | null, b: number | null): number | null {
  if (a === null) return b;
  if (b === null) return a;
  return Math.min(a, b);
}
