/**
 * A tuning refusal with the HTTP status and stable code it answers with
 * (spec 4.4, 4.5, 7). Domain code throws it; the route turns it into the
 * standard error body, `extra` fields included.
 */
export class TuningError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = 'TuningError';
  }
}
