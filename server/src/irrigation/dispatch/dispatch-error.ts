import { DomainError } from '../../core/domain-error';
import type { RouteResult, ZoneRoute } from './driver';

/**
 * A dispatch refused before any controller was asked (no route to a valve,
 * a one-at-a-time controller already busy). The HTTP layer maps it to its
 * status and code like a controller error.
 */
export class DispatchError extends DomainError {}

/** The zone's route, or 400 `zone_unbound` saying what is missing. */
export function routeOrThrow(result: RouteResult): ZoneRoute {
  if (result.ok) return result.route;
  throw new DispatchError(400, 'zone_unbound', result.failure.message, {
    hint:
      result.failure.reason === 'station_missing'
        ? "set the zone's controller_station or the controller's zone_map"
        : "add a [[controllers]] entry (or set the zone's controller_id)",
  });
}
