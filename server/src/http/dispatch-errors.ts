import { ControllerError } from '../controllers/errors';
import { DispatchError } from '../irrigation/dispatch/dispatch-error';
import { ApiError } from './errors';

/**
 * Controller and dispatch failures as API errors (spec 7): the controller's
 * code and status (424, 429, 501, 502; never 401), `rate_limit_remaining`
 * and `hint` where the vendor gave them. Anything else is rethrown as is.
 */
export function toDispatchApiError(err: unknown): unknown {
  if (err instanceof ControllerError) {
    return new ApiError(err.status, err.code, err.message, { ...err.extra });
  }
  if (err instanceof DispatchError) return new ApiError(err.status, err.code, err.message, err.extra);
  return err;
}
