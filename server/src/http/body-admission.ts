import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from './errors';
import type { HttpLimits } from './limits';

/**
 * Requests whose body is still arriving hold a socket and up to 1 MB of
 * buffer each. At most `maxBodies` arrive at once, `maxBodiesPerClient` from
 * one client address (the derived one: behind a trusted proxy each user
 * counts apart); past that the request is refused with 503 `server_busy`
 * before its body is read, and the connection closed (errors.ts), so a crowd
 * of slow bodies cannot starve /health or the engine. A slot is freed when
 * the body has arrived or the exchange ends, whichever comes first.
 */
export class BodyAdmission {
  private inFlight = 0;
  private readonly perClient = new Map<string, number>();

  constructor(private readonly limits: Pick<HttpLimits, 'maxBodies' | 'maxBodiesPerClient'>) {}

  /** Counts the request's body in; false when there is no room for it. */
  admit(request: FastifyRequest, reply: FastifyReply, client: string): boolean {
    const mine = this.perClient.get(client) ?? 0;
    if (this.inFlight >= this.limits.maxBodies || mine >= this.limits.maxBodiesPerClient) return false;
    this.inFlight += 1;
    this.perClient.set(client, mine + 1);
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      this.inFlight -= 1;
      const left = (this.perClient.get(client) ?? 1) - 1;
      if (left > 0) this.perClient.set(client, left);
      else this.perClient.delete(client);
    };
    request.raw.once('end', release);
    request.raw.once('close', release);
    reply.raw.once('close', release);
    return true;
  }

  get active(): number {
    return this.inFlight;
  }
}

export const RETRY_BUSY_AFTER_S = 5;

export function serverBusy(): ApiError {
  return new ApiError(
    503,
    'server_busy',
    'too many request bodies are arriving at once; retry in a few seconds',
  );
}
