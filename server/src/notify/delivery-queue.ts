import { epochSeconds, type Clock } from '../core/clock';
import type { Logger } from '../core/logger';
import type { DeliveryLog } from './delivery-log';
import type { Channel, ChannelId, Notice, SendResult } from './types';

/**
 * One channel's outbox. Notices go out one at a time in order; a failure that
 * may pass (timeout, 5xx, 429, connection refused) is retried with back-off,
 * the rest of this channel's notices waiting behind it. Nothing here is
 * awaited by the bus subscriber, so a dead mail server never delays the
 * engine, the scheduler or another channel. Final outcomes go to the log.
 */

/** Waits before the 2nd, 3rd, ... attempt; after the last one the notice is given up as failed. */
export const RETRY_DELAYS_MS: readonly number[] = [30_000, 120_000, 600_000, 1_800_000, 3_600_000];
/** A channel down for a day must not hold an unbounded backlog: the oldest waiting notice is dropped. */
export const MAX_QUEUED = 50;
/** A send that never answers (a channel bug, a hung socket) counts as a failed attempt. */
const ATTEMPT_LIMIT_MS = 60_000;

export type AttemptOutcome = SendResult['status'] | 'dropped';

export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realTimers: Timers = {
  setTimeout: (fn, ms) => {
    const handle = setTimeout(fn, ms);
    handle.unref();
    return handle;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

export interface DeliveryQueueDeps {
  channel: ChannelId;
  /** The channel's current sender; null once the config no longer has the channel. */
  sender: () => Channel | null;
  log: DeliveryLog;
  clock: Clock;
  logger: Logger;
  retryDelaysMs?: readonly number[];
  timers?: Timers;
}

interface Job {
  notice: Notice;
  attempts: number;
  resume: unknown;
  lastDetail: string | null;
  firstAttempt: (outcome: { status: AttemptOutcome; detail: string }) => void;
}

export interface QueueState {
  queued: number;
  /** The notice waiting to be retried, when the channel is failing. */
  retrying: { event: string; title: string; attempts: number; next_epoch: number; detail: string } | null;
}

export class DeliveryQueue {
  private readonly jobs: Job[] = [];
  private busy = false;
  private stopped = false;
  private waiting: { handle: unknown; nextEpoch: number } | null = null;
  private readonly delays: readonly number[];
  private readonly timers: Timers;

  constructor(private readonly deps: DeliveryQueueDeps) {
    this.delays = deps.retryDelaysMs ?? RETRY_DELAYS_MS;
    this.timers = deps.timers ?? realTimers;
  }

  /** Queues a notice; resolves with its first attempt's outcome (for "Send a test"), never rejects. */
  enqueue(notice: Notice): Promise<{ status: AttemptOutcome; detail: string }> {
    return new Promise((resolve) => {
      if (this.stopped) return resolve({ status: 'dropped', detail: 'notifications are stopping' });
      this.jobs.push({ notice, attempts: 0, resume: undefined, lastDetail: null, firstAttempt: resolve });
      if (this.jobs.length > MAX_QUEUED) {
        // Keep the one in flight (index 0); drop the oldest that waits behind it.
        const [dropped] = this.jobs.splice(1, 1);
        if (dropped)
          this.finish(dropped, 'dropped', `more than ${MAX_QUEUED} notices waited on this channel`);
      }
      this.pump();
    });
  }

  state(): QueueState {
    const head = this.jobs[0];
    return {
      queued: this.jobs.length,
      retrying:
        head && this.waiting
          ? {
              event: head.notice.event,
              title: head.notice.title,
              attempts: head.attempts,
              next_epoch: this.waiting.nextEpoch,
              detail: head.lastDetail ?? '',
            }
          : null,
    };
  }

  /** Stops sending; what is still queued is forgotten (memory only, like an outbox after a crash). */
  stop(): void {
    this.stopped = true;
    if (this.waiting) this.timers.clearTimeout(this.waiting.handle);
    this.waiting = null;
    for (const job of this.jobs.splice(0)) job.firstAttempt({ status: 'dropped', detail: 'stopped' });
  }

  private pump(): void {
    if (this.busy || this.waiting || this.stopped) return;
    const job = this.jobs[0];
    if (!job) return;
    this.busy = true;
    void this.attempt(job).finally(() => {
      this.busy = false;
      this.pump();
    });
  }

  private async attempt(job: Job): Promise<void> {
    const sender = this.deps.sender();
    if (!sender) {
      this.jobs.shift();
      this.finish(job, 'dropped', 'the channel is no longer configured');
      return;
    }
    job.attempts += 1;
    const result = await this.sendBounded(sender, job);
    if (this.stopped) return;
    if (result.status === 'retry') {
      job.lastDetail = result.detail;
      job.firstAttempt({ status: 'retry', detail: result.detail });
      job.firstAttempt = () => undefined;
      if (job.attempts > this.delays.length) {
        this.jobs.shift();
        this.finish(job, 'failed', `gave up after ${job.attempts} attempts: ${result.detail}`);
        return;
      }
      job.resume = result.resume ?? job.resume;
      this.retryLater(job, result.retryAfterMs);
      return;
    }
    this.jobs.shift();
    this.finish(job, result.status, result.detail);
  }

  private sendBounded(sender: Channel, job: Job): Promise<SendResult> {
    return attemptOnce(sender, job.notice, job.resume, this.timers);
  }

  private retryLater(job: Job, retryAfterMs: number | undefined): void {
    const backoff = this.delays[job.attempts - 1] ?? this.delays.at(-1) ?? 0;
    const wait = Math.max(backoff, Math.min(retryAfterMs ?? 0, 6 * 3600_000));
    const nextEpoch = epochSeconds(this.deps.clock) + Math.ceil(wait / 1000);
    this.deps.logger.warn(
      { channel: this.deps.channel, event: job.notice.event, attempt: job.attempts, retry_in_ms: wait },
      `notification not delivered, retrying: ${job.lastDetail}`,
    );
    const handle = this.timers.setTimeout(() => {
      this.waiting = null;
      this.pump();
    }, wait);
    this.waiting = { handle, nextEpoch };
  }

  private finish(job: Job, status: 'sent' | 'skipped' | 'failed' | 'dropped', detail: string): void {
    job.firstAttempt({ status, detail });
    if (status === 'skipped') return;
    if (status !== 'sent') {
      this.deps.logger.warn({ channel: this.deps.channel, event: job.notice.event, status }, detail);
    }
    try {
      this.deps.log.record({
        epoch: epochSeconds(this.deps.clock),
        channel: this.deps.channel,
        event: job.notice.event,
        tag: job.notice.tag,
        title: job.notice.title,
        status,
        attempts: job.attempts,
        detail,
      });
    } catch (err) {
      this.deps.logger.warn({ err: (err as Error).message }, 'could not record a notification delivery');
    }
  }
}

/**
 * One send, bounded: a send that never answers counts as a failed attempt
 * after a minute, and a throw (a channel bug, an unexpected library failure)
 * as one worth retrying; the queue and "Send a test" both go through here.
 */
export async function attemptOnce(
  channel: Channel,
  notice: Notice,
  resume: unknown,
  timers: Timers = realTimers,
): Promise<SendResult> {
  let handle: unknown = null;
  const limit = new Promise<SendResult>((resolve) => {
    handle = timers.setTimeout(
      () => resolve({ status: 'retry', detail: `no answer within ${ATTEMPT_LIMIT_MS / 1000} s` }),
      ATTEMPT_LIMIT_MS,
    );
  });
  try {
    return await Promise.race([channel.send(notice, resume), limit]);
  } catch (err) {
    return { status: 'retry', detail: (err as Error)?.message ?? String(err) };
  } finally {
    timers.clearTimeout(handle);
  }
}
