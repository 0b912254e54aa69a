import type { HaState } from '../../ha/ha-link';
import { discoveredRoles, soilChannels, withBoundZones } from '../../ha/sensor-inventory';
import { ECOWITT_INGEST_KIND, HTTP_WEBHOOK_KIND } from '../../weather/sources/push-kinds';
import { epochSeconds } from '../../core/clock';
import type { HttpDeps } from '../deps';
import { ApiError } from '../errors';
import type { RouteHandler } from '../lazy-handlers';

/**
 * The handlers of /sensors/soil, /sensors/discovered and /sensors/manifest
 * (spec 4.7; the route table is routes/sensors.ts). This module and the HA
 * sensor inventory load on the first /sensors request. Home Assistant's
 * entities are read live with get_states; when HA is not configured or not
 * reachable that part is empty and `ha_reachable` is false.
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

type SensorsRoute = 'soil' | 'manifest' | 'manifestCommand' | 'discovered';

export function sensorsHandlers(deps: HttpDeps): Record<SensorsRoute, RouteHandler> {
  return {
    soil: async () => {
      const { states, ...ha } = await readHaStates(deps);
      const zones = deps.config.current?.config.zones ?? {};
      return { ...ha, sensors: withBoundZones(soilChannels(states, deps.weather.extras()), zones) };
    },

    manifest: async () => {
      const view = deps.catalogView();
      if (!view) throw new ApiError(409, 'config_absent', 'no config yet: no entities to describe');
      const { entityCatalog, buildManifest } = loadManifest();
      const updates = deps.updates?.status() ?? null;
      return buildManifest(entityCatalog(view), view, epochSeconds(deps.clock), updates);
    },

    // The companion integration's entity commands: the descriptor maps the payload (its MQTT
    // command payload: ON/OFF, OPEN/CLOSE, PRESS, a number, an option, a zoned time) to the same
    // action body an MQTT command gets, run by the POST /irrigation/action executor.
    manifestCommand: async (request) => {
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
    },

    discovered: async () => {
      const { states, ...ha } = await readHaStates(deps);
      return { ...ha, roles: discoveredRoles(states, deps.weather.channelsOf(LOCAL_POST_KINDS)) };
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
