import type { HaState } from '../../ha/ha-link';
import { discoveredRoles, soilChannels, withBoundZones } from '../../ha/sensor-inventory';
import { ECOWITT_INGEST_KIND, HTTP_WEBHOOK_KIND } from '../../weather/sources/push-kinds';
import { epochSeconds } from '../../core/clock';
import type { DomainRoutes, HttpDeps } from '../deps';
import { ApiError } from '../errors';

/**
 * GET /sensors/soil and /sensors/discovered (spec 4.7; shapes in docs/ha.md).
 * They mount only when the history database is available (404 otherwise,
 * like any unknown path). Home Assistant's entities are read live with
 * get_states; when HA is not configured or not reachable that part is empty
 * and `ha_reachable` is false. GET /sensors/manifest is the entity catalog
 * as manifest 1.6 (the same catalog the MQTT discovery topics come from).
 */

/** The local POST sources whose channels /sensors/discovered lists. */
export const LOCAL_POST_KINDS = [ECOWITT_INGEST_KIND, HTTP_WEBHOOK_KIND] as const;
/** A picker must not hang on a stuck HA: past this the HA part is empty. */
export const HA_STATES_TIMEOUT_MS = 5_000;

interface HaRead {
  ha_configured: boolean;
  ha_reachable: boolean;
  states: HaState[];
}

export function sensorsRoutes(deps: HttpDeps): DomainRoutes {
  if (!deps.store) return {};
  return {
    shared: (scope) => {
      scope.get('/sensors/soil', async () => {
        const { states, ...ha } = await readHaStates(deps);
        const zones = deps.config.current?.config.zones ?? {};
        return { ...ha, sensors: withBoundZones(soilChannels(states, deps.weather.extras()), zones) };
      });

      scope.get('/sensors/manifest', async () => {
        const view = deps.catalogView();
        if (!view) throw new ApiError(409, 'config_absent', 'no config yet: no entities to describe');
        const { entityCatalog, buildManifest } = loadManifest();
        const updates = deps.updates?.status() ?? null;
        return buildManifest(entityCatalog(view), view, epochSeconds(deps.clock), updates);
      });

      // The companion integration's entity commands: the descriptor maps the payload (its MQTT
      // command payload: ON/OFF, OPEN/CLOSE, PRESS, a number, an option, a zoned time) to the same
      // action body an MQTT command gets, run by the POST /irrigation/action executor.
      scope.post('/sensors/manifest/command', async (request) => {
        const view = deps.catalogView();
        if (!view) throw new ApiError(409, 'config_absent', 'no config yet: no entities to command');
        const { key, payload } = (request.body ?? {}) as { key?: unknown; payload?: unknown };
        if (typeof key !== 'string' || typeof payload !== 'string')
          throw new ApiError(400, 'invalid_body', 'expected {key: string, payload: string}');
        const entity = loadManifest()
          .entityCatalog(view)
          .find((e) => e.key === key);
        if (!entity?.command) throw new ApiError(404, 'entity_unknown', `no entity "${key}" takes commands`);
        const body = entity.command(payload.trim());
        if (!body)
          throw new ApiError(400, 'payload_not_understood', `"${key}" does not understand "${payload}"`);
        const outcome = await deps.actions.execute(body);
        if (outcome.ok) return outcome.body;
        throw new ApiError(outcome.status, outcome.code, outcome.message, outcome.extra);
      });

      scope.get('/sensors/discovered', async () => {
        const { states, ...ha } = await readHaStates(deps);
        return { ...ha, roles: discoveredRoles(states, deps.weather.channelsOf(LOCAL_POST_KINDS)) };
      });
    },
  };
}

async function readHaStates(deps: HttpDeps): Promise<HaRead> {
  const link = deps.ha?.link ?? null;
  if (!link) return { ha_configured: false, ha_reachable: false, states: [] };
  if (!link.reachable) return { ha_configured: true, ha_reachable: false, states: [] };
  let timer: NodeJS.Timeout | undefined;
  try {
    const states = await Promise.race([
      link.getStates(),
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), HA_STATES_TIMEOUT_MS);
        timer.unref();
      }),
    ]);
    return { ha_configured: true, ha_reachable: true, states };
  } catch (err) {
    deps.logger.warn({ reason: (err as Error).message }, 'sensors: could not read Home Assistant states');
    return { ha_configured: true, ha_reachable: false, states: [] };
  } finally {
    clearTimeout(timer);
  }
}

/** The manifest's zod schema and the catalog load on the first manifest request, not at boot. */
function loadManifest(): typeof import('../../ha/entities/manifest') &
  typeof import('../../ha/entities/catalog') {
  /* eslint-disable @typescript-eslint/no-require-imports */
  return {
    ...(require('../../ha/entities/manifest') as typeof import('../../ha/entities/manifest')),
    ...(require('../../ha/entities/catalog') as typeof import('../../ha/entities/catalog')),
  };
  /* eslint-enable @typescript-eslint/no-require-imports */
}
