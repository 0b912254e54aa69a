/**
 * A wizard refusal with the HTTP status and stable code it answers with
 * (spec 4.6, 7). Domain code throws it; the route turns it into the standard
 * error body, `extra` fields included.
 */
export class WizardError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'WizardError';
  }
}

/** Rejects with `onTimeout()` when `promise` has not settled within `ms`. */
export async function withDeadline<T>(promise: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
    timer.unref();
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** A fetch failure as a short human note (timeouts, refused connections). */
export function describeFetchFailure(err: unknown, timeoutMs: number): string {
  const failure = typeof err === 'object' && err !== null ? (err as { name?: unknown; cause?: unknown }) : {};
  if (failure.name === 'TimeoutError' || failure.name === 'AbortError') {
    return `no answer within ${Math.round(timeoutMs / 100) / 10} s`;
  }
  const cause = failure.cause;
  if (typeof cause === 'object' && cause !== null && 'code' in cause) return String(cause.code);
  const message = (err as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : String(err);
}
