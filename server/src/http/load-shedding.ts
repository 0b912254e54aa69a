import type { FastifyRequest } from 'fastify';
import type { Logger } from '../core/logger';

/**
 * Refusals that shed load (503 `server_busy`, `streams_full`) are not logged
 * one line each: under the flood that causes them, a line per refusal made
 * the log the bottleneck. Each is logged at debug, and a warning says how many
 * there were, at most once a minute.
 */

const SHED = Symbol('raincheck.shed');
const REPORT_EVERY_MS = 60_000;

export function markShed(request: FastifyRequest): void {
  (request as FastifyRequest & { [SHED]?: true })[SHED] = true;
}

export function isShed(request: FastifyRequest): boolean {
  return (request as FastifyRequest & { [SHED]?: true })[SHED] === true;
}

/** Counts refusals of one kind and warns about them at most once a minute. */
export class ShedReport {
  private refused = 0;
  private lastReportMs = 0;

  constructor(
    private readonly logger: Logger,
    private readonly what: string,
  ) {}

  refuse(request: FastifyRequest): void {
    markShed(request);
    this.refused += 1;
    const now = Date.now();
    if (now - this.lastReportMs < REPORT_EVERY_MS) return;
    this.logger.warn({ refused: this.refused }, `refused ${this.what} (since the last report)`);
    this.refused = 0;
    this.lastReportMs = now;
  }
}
