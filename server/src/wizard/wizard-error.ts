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

export { describeFetchFailure } from '../core/fetch-failure';
