import { listenForGateways } from '../../weather/discovery';
import type { DeviceRecord } from '../../weather/source';
import type { DomainRoutes, HttpDeps } from '../deps';
import { compareText } from '../../core/compare';

/** GET /devices (every gateway, hub, station, cloud account and controller, sorted by id) and /devices/discover. */
export function devicesRoutes(deps: HttpDeps): DomainRoutes {
  return {
    shared: (scope) => {
      scope.get('/devices', async () => {
        const config = deps.config.current?.config;
        const controllers: DeviceRecord[] = (config?.controllers ?? []).map((c) => ({
          id: `controller:${c.id}`,
          kind: 'controller',
          source_id: c.id,
          model: c.kind,
          serial: null,
          firmware: null,
          host: typeof c.config.host === 'string' ? c.config.host : null,
          sensors: Object.entries(config?.zones ?? {})
            .filter(
              ([, zone]) => (zone.controller_id ?? config?.controllers.find((x) => x.default)?.id) === c.id,
            )
            .map(([slug]) => slug),
          battery_v: null,
          rssi_dbm: null,
          last_seen_epoch: null,
          status_note: null,
        }));
        return {
          devices: [...deps.weather.devices(), ...controllers].sort((a, b) => compareText(a.id, b.id)),
        };
      });

      scope.get('/devices/discover', async () =>
        listenForGateways(deps.discoveryListenMs, deps.discoveryPort),
      );
    },
  };
}
