import { isStormDay } from '../../weather/sources/demo/demo-replay';

/**
 * The demo forecast's skill (issue 25 rule 8): a realistic forecast that
 * sometimes misses a storm and sometimes promises one that never comes, so a
 * newcomer sees the decision policy bet on rain and lose or win. Seeded and
 * deterministic: each call depends only on the day it is for and the day it
 * was issued (the demo's local dates), so every refresh of one day says the
 * same, and a restart changes nothing.
 *
 * The error model, by lead L = target day - issue day (0..6; longer leads
 * count as 6):
 * - a storm day (the replay's truth, about 0.57 in) is missed (called dry,
 *   10..30 % chance) when the day's draw u < 0.15 + 0.05 L; otherwise it is
 *   called at 0.6..1.4 x its rain, 60..85 % chance, less 3 points a day of lead;
 * - a dry day is called a storm (a false alarm of 0.3..1.0 x a storm's rain,
 *   45..75 % chance, less 3 points a day of lead) when its draw v < 0.12 + 0.04 L;
 * - u and v belong to the target day, so a day missed at a short lead is
 *   missed at every longer one and forecasts firm up as the day comes near;
 *   the amount and chance vary with the issue day too.
 * Past days (L < 0) are the replay's truth, as a provider's past days are its
 * analysis: the daily weather record backfills from them.
 */

export type DemoCallKind = 'truth' | 'hit' | 'miss' | 'false_alarm' | 'dry';

export interface DemoDayCall {
  kind: DemoCallKind;
  /** Multiplier of the storm's shape: 0 = no rain called. */
  scale: number;
  /** The chance (%) given to the called rain, or to rain at all on a missed storm day. */
  probability_pct: number;
}

const MAX_LEAD = 6;
const MISS = { base: 0.15, per_day: 0.05 };
const FALSE_ALARM = { base: 0.12, per_day: 0.04 };
const SALT = { miss: 0x9e37, false_alarm: 0x7f4a, jitter: 0x2c1b };

export function demoDayCall(targetDay: number, issueDay: number): DemoDayCall {
  const storm = isStormDay(targetDay);
  if (targetDay < issueDay) return { kind: 'truth', scale: storm ? 1 : 0, probability_pct: storm ? 80 : 5 };
  const lead = Math.min(MAX_LEAD, targetDay - issueDay);
  const jitter = unit(targetDay * 131 + issueDay, SALT.jitter);
  if (storm) {
    if (unit(targetDay, SALT.miss) < MISS.base + MISS.per_day * lead) {
      return { kind: 'miss', scale: 0, probability_pct: Math.round(10 + 20 * jitter) };
    }
    return {
      kind: 'hit',
      scale: 0.6 + 0.8 * jitter,
      probability_pct: Math.round(85 - 25 * jitter - 3 * lead),
    };
  }
  if (unit(targetDay, SALT.false_alarm) < FALSE_ALARM.base + FALSE_ALARM.per_day * lead) {
    return {
      kind: 'false_alarm',
      scale: 0.3 + 0.7 * jitter,
      probability_pct: Math.round(45 + 30 * jitter - 3 * lead),
    };
  }
  return { kind: 'dry', scale: 0, probability_pct: 5 };
}

/** A deterministic draw in [0, 1) for an integer and a salt (a 32-bit integer hash). */
function unit(n: number, salt: number): number {
  let x = (Math.imul(n | 0, 0x27d4eb2d) ^ salt) >>> 0;
  x = (x ^ (x >>> 15)) >>> 0;
  x = Math.imul(x, 0x85ebca6b) >>> 0;
  x = (x ^ (x >>> 13)) >>> 0;
  x = Math.imul(x, 0xc2b2ae35) >>> 0;
  x = (x ^ (x >>> 16)) >>> 0;
  return x / 0x1_0000_0000;
}
