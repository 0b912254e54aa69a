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
