/**
 * A refusal raised below the HTTP layer that already knows the status and
 * stable code it answers with (spec 7). Domain folders cannot import
 * http/errors (data flows one way), so each throws its own subclass of this
 * and its route turns it into the standard error body, `extra` included.
 */
export class DomainError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}
