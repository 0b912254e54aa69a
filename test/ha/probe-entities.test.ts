import { buildManifest, manifestSchema } from '../../server/src/ha/entities/manifest';
import { entityCatalog } from '../../server/src/ha/entities/catalog';
import type { CatalogView } from '../../server/src/ha/entities/descriptor';
import { computeIrrigation } from '../../server/src/irrigation/engine/engine';
import { neutralControls } from '../../server/src/irrigation/controls/types';
import { probeEvidence } from '../../server/src/irrigation/soil/probe-evidence';
import { demo, input, NOW } from '../irrigation/engine/fixtures';

/** Probe entities in the catalog and /sensors/manifest, gated on a readable bound probe. */

const SENSOR = 'source:gw:soil_moisture_pct:1';
const CAL = {
  dry_raw_pct: 10,
  wet_raw_pct: 50,
  dry_origin: 'owner' as const,
  wet_origin: 'owner' as const,
  updated_epoch: 0,
};

function viewWith(sensorId: string | null, readings: { epoch: number; value: number }[]): CatalogView {
  const config = demo((raw) => {
    const zones = raw['zones'] as Record<string, Record<string, unknown>>;
    if (sensorId) (zones['front_lawn'] as Record<string, unknown>)['soil_sensor_id'] = sensorId;
  });
  const probes = sensorId
    ? new Map([['front_lawn', probeEvidence(sensorId, readings, CAL, NOW, 3 * 3600)]])
    : undefined;
  const out = computeIrrigation(input({ config, ...(probes ? { probes } : {}) }));
  return {
    config,
    irrigation: out.snapshot,
    verdict: out.verdict,
    reason: out.verdictReason.reason,
    weather: null,
    controls: neutralControls(),
  };
}

const keysOf = (view: CatalogView) => entityCatalog(view).map((e) => e.key);

describe('soil probe entities', () => {
  it('a zone with a readable probe gets its moisture (calibrated) and state sensors, in a valid manifest', () => {
    const view = viewWith(SENSOR, [{ epoch: NOW - 600, value: 30 }]);
    const manifest = buildManifest(entityCatalog(view), view, NOW);
    expect(manifestSchema.safeParse(manifest).success).toBe(true);
    const moisture = manifest.entities.find((e) => e.key === 'zone_front_lawn_soil_moisture');
    expect(moisture).toMatchObject({
      requires: 'zone:probe',
      unit_of_measurement: '%',
      device_class: 'moisture',
      state: '50',
    });
    expect(manifest.entities.find((e) => e.key === 'zone_front_lawn_probe_state')).toMatchObject({
      state: 'calibrated',
      entity_category: 'diagnostic',
    });
    expect(keysOf(view).filter((k) => k.includes('soil_moisture'))).toEqual([
      'zone_front_lawn_soil_moisture',
    ]);
  });

  it('an offline probe keeps its entities with an unknown reading, never a 0', () => {
    const view = viewWith(SENSOR, [{ epoch: NOW - 4 * 3600, value: 30 }]);
    const manifest = buildManifest(entityCatalog(view), view, NOW);
    expect(manifest.entities.find((e) => e.key === 'zone_front_lawn_soil_moisture')?.state).toBeNull();
    expect(manifest.entities.find((e) => e.key === 'zone_front_lawn_probe_state')?.state).toBe('offline');
  });

  it('no probe, or one the service cannot read (an HA entity), offers none', () => {
    expect(keysOf(viewWith(null, [])).some((k) => k.includes('probe') || k.includes('soil_moisture'))).toBe(
      false,
    );
    expect(
      keysOf(viewWith('ha:sensor.garden_soil', [])).some(
        (k) => k.includes('probe') || k.includes('soil_moisture'),
      ),
    ).toBe(false);
  });
});
