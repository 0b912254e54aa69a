/**
 * Controller failures (spec 7): a vendor's refusal maps to one of these
 * codes, never to a 401 (that status belongs to our own auth). The HTTP
 * layer turns a ControllerError into its status and body fields.
 */

export type ControllerErrorCode =
  'controller_auth_failed' | 'controller_rate_limited' | 'controller_unsupported' | 'controller_unreachable';

export const CONTROLLER_ERROR_STATUS: Record<ControllerErrorCode, number> = {
  controller_auth_failed: 424,
  controller_rate_limited: 429,
  controller_unsupported: 501,
  controller_unreachable: 502,
};

export interface ControllerErrorExtra {
  /** controller_rate_limited: the vendor's remaining-calls header as a string, null when absent. */
  rate_limit_remaining?: string | null;
  hint?: string;
}

export class ControllerError extends Error {
  constructor(
    readonly code: ControllerErrorCode,
    message: string,
    readonly extra: ControllerErrorExtra = {},
  ) {
    super(message);
    this.name = 'ControllerError';
  }

  get status(): number {
    return CONTROLLER_ERROR_STATUS[this.code];
  }
}

export function unsupported(controllerId: string, what: string): ControllerError {
  return new ControllerError('controller_unsupported', `controller "${controllerId}" cannot ${what}`);
}

export function unreachable(controllerId: string, detail: string): ControllerError {
  return new ControllerError('controller_unreachable', `controller "${controllerId}": ${detail}`);
}

export function authFailed(controllerId: string, detail: string): ControllerError {
  return new ControllerError(
    'controller_auth_failed',
    `controller "${controllerId}" rejected the credential: ${detail}`,
    { hint: 'check the controller password or API key in the config' },
  );
}

export function rateLimited(controllerId: string, remaining: string | null, detail: string): ControllerError {
  return new ControllerError(
    'controller_rate_limited',
    `controller "${controllerId}" is rate limited: ${detail}`,
    {
      rate_limit_remaining: remaining,
      hint: 'the vendor allows a fixed number of calls per day; wait for the reset or raise poll_interval_s',
    },
  );
}

/** Anything thrown inside an adapter becomes a ControllerError (unknown failures: unreachable). */
export function asControllerError(controllerId: string, err: unknown): ControllerError {
  if (err instanceof ControllerError) return err;
  const message = (err as { message?: unknown } | null)?.message;
  return unreachable(controllerId, typeof message === 'string' ? message : String(err));
}
