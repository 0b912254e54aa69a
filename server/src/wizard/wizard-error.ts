import { DomainError } from '../core/domain-error';

/** A wizard refusal (spec 4.6, 7). Domain code throws it; the route maps it to the standard error body. */
export class WizardError extends DomainError {}

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
