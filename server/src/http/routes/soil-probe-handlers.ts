import { epochSeconds } from '../../core/clock';
import type { ProbeCalibration } from '../../irrigation/soil/probe-calibration';
import { isCalibrated } from '../../irrigation/soil/probe-calibration';
import { storedChannel } from '../../irrigation/soil/probe-evidence';
import type { SoilProbes } from '../../irrigation/soil/soil-probes';
import type { Store } from '../../store/store';
import type { HttpDeps } from '../deps';
import { ApiError, badRequest } from '../errors';
import type { RouteHandler } from '../lazy-handlers';
import { probeList, type ProbeForecastView } from '../../irrigation/soil/probe-list';
import { isPlainObject, type JsonObject } from '../../config/json-walk';
import { write } from './config';
import { bindingBody, calibrationBody, nameBody } from './soil-probe-bodies';

/**
 * The handlers of a soil probe's calibration, binding and name (spec 4.7;
 * the route table and the bodies' meaning are in routes/soil-probes.ts).
 * This module and the probe list load on the first soil probe request.
 */

export interface CalibrationAnswer {
  sensor_id: string;
  calibration: ProbeCalibration | null;
  calibrated: boolean;
}

type SoilProbeRoute = 'setCalibration' | 'probes' | 'bind' | 'rename' | 'forget' | 'clearCalibration';

export function soilProbeHandlers(
  deps: HttpDeps,
  store: Store,
  probes: SoilProbes,
): Record<SoilProbeRoute, RouteHandler> {
  const changed = (sensorId: string, calibration: ProbeCalibration | null): CalibrationAnswer => {
    deps.soil?.invalidate();
    deps.irrigation.refresh();
    return { sensor_id: sensorId, calibration, calibrated: isCalibrated(calibration) };
  };
  return {
    setCalibration: async (request) => {
      const parsed = calibrationBody.safeParse(request.body ?? {});
      if (!parsed.success)
        throw badRequest(
          'invalid_body',
          'expected {sensor_id: string, point: "dry"|"wet", raw_pct?: number}',
        );
      const { sensor_id: sensorId, point } = parsed.data;
      const channel = storedChannel(sensorId);
      if (!channel) {
        throw new ApiError(
          422,
          'probe_unsupported',
          'only stored channels (source:<source id>:<key>) can be calibrated: their history is what the ledger reads',
        );
      }
      const now = epochSeconds(deps.clock);
      const raw = parsed.data.raw_pct ?? latestReading(store, channel, now);
      if (raw === null) {
        throw new ApiError(
          409,
          'probe_no_reading',
          `no reading of ${sensorId} in the last day: give raw_pct`,
        );
      }
      if (!(raw >= 0 && raw <= 100))
        throw badRequest('calibration_out_of_range', 'raw_pct must lie in 0..100');
      const current = probes.calibrations.get(sensorId);
      const other = point === 'dry' ? (current?.wet_raw_pct ?? null) : (current?.dry_raw_pct ?? null);
      if (other !== null && (point === 'dry' ? raw >= other : raw <= other)) {
        throw new ApiError(
          422,
          'calibration_inverted',
          `the wet point must read above the dry point (the ${point === 'dry' ? 'wet' : 'dry'} point is ${other} %)`,
        );
      }
      return changed(sensorId, probes.calibrations.setPoint(sensorId, point, raw, 'owner', now));
    },

    probes: async () => ({ probes: listProbes(deps, probes) }),

    bind: async (request) => {
      const parsed = bindingBody.safeParse(request.body ?? {});
      if (!parsed.success)
        throw badRequest('invalid_body', 'expected {sensor_id: string, zone: string|null}');
      const { sensor_id: sensorId, zone } = parsed.data;
      const zones = deps.config.current?.config.zones ?? {};
      if (zone !== null && !Object.hasOwn(zones, zone)) {
        throw badRequest('zone_unknown', `no zone "${zone}"`, { mapped_zones: Object.keys(zones).sort() });
      }
      await bind(deps, sensorId, zone);
      deps.irrigation.refresh();
      return { sensor_id: sensorId, zone, probes: listProbes(deps, probes) };
    },

    rename: async (request) => {
      const parsed = nameBody.safeParse(request.body ?? {});
      if (!parsed.success)
        throw badRequest(
          'invalid_body',
          'expected {sensor_id: string, name: string|null} (80 characters at most)',
        );
      probes.calibrations.rename(parsed.data.sensor_id, parsed.data.name);
      return { probes: listProbes(deps, probes) };
    },

    forget: async (request) => {
      const sensorId = (request.query as Record<string, unknown>)['sensor_id'];
      if (typeof sensorId !== 'string' || sensorId === '')
        throw badRequest('invalid_query', 'expected ?sensor_id=<id>');
      await bind(deps, sensorId, null);
      probes.calibrations.clear(sensorId);
      probes.calibrations.rename(sensorId, null);
      deps.soil?.invalidate();
      deps.irrigation.refresh();
      return { probes: listProbes(deps, probes) };
    },

    clearCalibration: async (request) => {
      const sensorId = (request.query as Record<string, unknown>)['sensor_id'];
      if (typeof sensorId !== 'string' || sensorId === '')
        throw badRequest('invalid_query', 'expected ?sensor_id=<id>');
      probes.calibrations.clear(sensorId);
      return changed(sensorId, null);
    },
  };
}

function listProbes(deps: HttpDeps, probes: SoilProbes) {
  const forecasts = (deps.irrigation.snapshot()?.soil_forecasts ?? []) as unknown as ProbeForecastView[];
  return probeList({
    extras: deps.weather.extras(),
    recorded: deps.weather
      .devices()
      .flatMap((d) => (d.channels ?? []).map((c) => ({ ...c, id: `source:${d.source_id}:${c.key}` }))),
    zones: deps.config.current?.config.zones ?? {},
    forecasts,
    calibration: (id) => probes.calibrations.get(id),
    name: (id) => probes.calibrations.name(id),
  });
}

/** Binds the probe to one zone (unbinding it from any other), or unbinds it everywhere (zone null). */
async function bind(deps: HttpDeps, sensorId: string, zone: string | null): Promise<void> {
  const zones = deps.config.current?.config.zones ?? {};
  const changes = Object.entries(zones).some(
    ([slug, z]) => (slug === zone) !== ((z.soil_sensor_id ?? null) === sensorId),
  );
  if (!changes) return;
  await write(deps, () =>
    deps.config.update(
      (stored) => {
        const storedZones = isPlainObject(stored['zones']) ? (stored['zones'] as JsonObject) : {};
        for (const [slug, value] of Object.entries(storedZones)) {
          if (!isPlainObject(value)) continue;
          const entry = value as JsonObject;
          if (slug === zone) entry['soil_sensor_id'] = sensorId;
          else if (entry['soil_sensor_id'] === sensorId) delete entry['soil_sensor_id'];
        }
        return stored;
      },
      { note: zone ? `before binding ${sensorId} to ${zone}` : `before unbinding ${sensorId}` },
    ),
  );
}

/** The channel's newest stored reading of the last day; null when none. */
function latestReading(
  store: Store,
  channel: { source_id: string; field: string },
  now: number,
): number | null {
  const rows = store.readings
    .listRecent(now, 24, channel.field)
    .filter((r) => r.source_id === channel.source_id);
  return rows.at(-1)?.value ?? null;
}
