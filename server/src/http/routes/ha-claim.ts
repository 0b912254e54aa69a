import { epochSeconds } from '../../core/clock';
import type { IntegrationClaim } from '../../ha/integration-claim';
import type { DomainRoutes, HttpDeps } from '../deps';
import { ApiError } from '../errors';

/**
 * GET and PUT /ha/claim (docs/ha.md, "One entity per fact"): whether the
 * companion integration represents this install, in which case MQTT
 * discovery is withdrawn. `mqtt_discovery` says what the publisher does now:
 * `published`, `withdrawn` (claimed), or `not_configured` (no broker).
 */
export function haClaimRoutes(
  deps: Pick<HttpDeps, 'clock'>,
  claim: IntegrationClaim,
  mqttConfigured: () => boolean,
): DomainRoutes {
  const body = () => {
    const state = claim.get();
    const mqtt = !mqttConfigured() ? 'not_configured' : state.claimed ? 'withdrawn' : 'published';
    return { ...state, mqtt_discovery: mqtt };
  };
  return {
    shared: (scope) => {
      scope.get('/ha/claim', async () => body());
      scope.put('/ha/claim', async (request) => {
        const claimed = (request.body as { claimed?: unknown } | null)?.claimed;
        if (typeof claimed !== 'boolean')
          throw new ApiError(400, 'invalid_body', 'expected {claimed: boolean}');
        claim.set(claimed, epochSeconds(deps.clock));
        return body();
      });
    },
  };
}
