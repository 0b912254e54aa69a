import type { KeyValue } from '../irrigation/dispatch/dispatcher';
import type { IrrigationSnapshot } from '../irrigation/snapshot-schema';
import type { ForecastAbsence } from './catalog';

/**
 * Rule 4's notices (docs/notifications.md): the yard decides without a
 * forecast, and the forecast is back. Judged on each irrigation snapshot:
 * without a forecast means every zone's forecast credit source is
 * `unavailable` (no usable next-24-hour forecast: unreachable, too old or
 * not configured). Edge-triggered: absent is told once it has lasted
 * ABSENT_AFTER_S (a boot's first recomputes, before the first forecast
 * fetch, are not an outage), back only after absent was told. That absent
 * was told is kept in the controls table, so a restart neither repeats it
 * nor forgets to say it is back; the pending start is not kept (a restart
 * waits the full window again).
 */

export const FORECAST_ABSENT_KEY = 'notify.forecast_absent';
export const ABSENT_AFTER_S = 1800;

type Judgement = 'absent' | 'present' | 'nothing_decided';

export function forecastJudgement(snapshot: IrrigationSnapshot): Judgement {
  const rows = snapshot.water_budgets ?? [];
  if (rows.length === 0) return 'nothing_decided';
  return rows.every((r) => r.forecast_credit_source === 'unavailable') ? 'absent' : 'present';
}

export class ForecastAbsenceTracker {
  private pendingSince: number | null = null;
  /** What was told, read from the store once, then kept here (a failed write must not repeat a notice). */
  private told: number | null | undefined = undefined;

  constructor(private readonly state: KeyValue | null) {}

  /** What to tell after this snapshot, if anything. */
  observe(snapshot: IrrigationSnapshot, now: number): ForecastAbsence | null {
    const judged = forecastJudgement(snapshot);
    if (judged === 'nothing_decided') return null;
    const lastSeen = snapshot.forecast_last_seen_epoch > 0 ? snapshot.forecast_last_seen_epoch : null;
    const told = this.toldSince();
    if (judged === 'present') {
      this.pendingSince = null;
      if (told === null) return null;
      this.setTold(null);
      return { state: 'back', since_epoch: told, last_seen_epoch: lastSeen };
    }
    if (told !== null) return null;
    this.pendingSince ??= now;
    if (now - this.pendingSince < ABSENT_AFTER_S) return null;
    this.setTold(this.pendingSince);
    return { state: 'absent', since_epoch: this.pendingSince, last_seen_epoch: lastSeen };
  }

  private toldSince(): number | null {
    if (this.told === undefined) {
      const stored = this.state?.get(FORECAST_ABSENT_KEY);
      this.told = typeof stored === 'number' ? stored : null;
    }
    return this.told;
  }

  private setTold(since: number | null): void {
    this.told = since;
    try {
      this.state?.set(FORECAST_ABSENT_KEY, since);
    } catch {
      // A store that refuses (a full disk) costs only the memory across a restart; the notice still goes once.
    }
  }
}
