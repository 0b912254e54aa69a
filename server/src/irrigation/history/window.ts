/**
 * The time window a history route reads (spec 2.5 "History window": `from_epoch`,
 * `to_epoch`, inclusive). A trailing window of `days` x 24 h ending now, so the
 * same query always covers the same span whatever the local calendar; days 0
 * starts at the epoch: every retained record.
 */

export const DAY_S = 86_400;

export interface HistoryBounds {
  from_epoch: number;
  to_epoch: number;
}

export function trailingWindow(nowEpoch: number, days: number): HistoryBounds {
  return { from_epoch: days === 0 ? 0 : Math.max(0, nowEpoch - days * DAY_S), to_epoch: nowEpoch };
}
