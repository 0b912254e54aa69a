import type { EventBus } from '../../core/bus';
import { epochSeconds, type Clock } from '../../core/clock';
import type { Module } from '../../core/lifecycle';
import type { Logger } from '../../core/logger';
import type { AnnouncementsRepository } from '../../store/announcements';
import { DAY_S } from '../history/window';
import type { TuningApi } from './lazy-tuning';

/**
 * The weekly `tuning.digest` (spec 6.2: a weekly tuning push unless every
 * suggestion is silenced). Once a week it announces the recommendations the
 * report shows, silenced ones left out; when all are silenced the list is
 * empty and the notification subscriber sends nothing. The first digest
 * goes out a week after the loop first ran (a fresh install has no evidence);
 * when the last one went out is kept in the database, so restarts neither
 * repeat nor skip a week.
 */

export const DIGEST_KEY = 'tuning.digest';
export const DIGEST_EVERY_S = 7 * DAY_S;
const CHECK_EVERY_MS = 3_600_000;

export interface TuningDigestDeps {
  bus: EventBus;
  clock: Clock;
  logger: Logger;
  tuning: Pick<TuningApi, 'visibleRecommendations'>;
  announcements: AnnouncementsRepository;
  /** The digest reads the report at its default window. */
  windowDays?: number;
}

export class TuningDigest implements Module {
  readonly name = 'tuning-digest';
  private timer: NodeJS.Timeout | null = null;
  private readonly log: Logger;

  constructor(private readonly deps: TuningDigestDeps) {
    this.log = deps.logger.child({ module: 'tuning-digest' });
  }

  async start(): Promise<void> {
    this.check();
    this.timer = setInterval(() => this.check(), CHECK_EVERY_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Announces when a week has passed since the last digest; returns whether it did. Public for tests. */
  check(): boolean {
    const now = epochSeconds(this.deps.clock);
    const last = this.deps.announcements.get(DIGEST_KEY);
    if (!last) {
      this.deps.announcements.touch(DIGEST_KEY, now);
      return false;
    }
    if (now - last.last_epoch < DIGEST_EVERY_S) return false;
    const windowDays = this.deps.windowDays ?? 14;
    let recommendations;
    try {
      recommendations = this.deps.tuning.visibleRecommendations(windowDays);
    } catch (err) {
      // No config yet, or the database refused: try again at the next check.
      this.log.debug({ err: (err as Error).message }, 'no tuning digest this time');
      return false;
    }
    this.deps.announcements.touch(DIGEST_KEY, now);
    this.deps.bus.emit('tuning.digest', {
      window_days: windowDays,
      epoch: now,
      recommendations: recommendations.map(({ zone, recommendation }) => ({
        zone,
        field: recommendation.field,
        id: recommendation.id,
        headline: recommendation.headline,
      })),
    });
    return true;
  }
}
