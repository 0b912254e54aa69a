import type { CatalogView, EntityDescriptor } from './descriptor';

/**
 * A zone's soil probe in Home Assistant, capability-gated (spec 2.5,
 * manifest 1.6: `requires` `zone:probe`): offered only while the zone binds
 * a probe the service reads as history (its `soil_forecasts[]` status is not
 * `no_probe` or `unsupported`). Two sensors: the reading (the calibrated
 * percentage once calibrated, else the probe's relative reading; unknown
 * while the probe is offline or distrusted, never a made-up 0) and the
 * probe's state (`calibrated`, `uncalibrated`, `offline`, `distrusted`).
 */

interface ForecastRow {
  zone?: unknown;
  status?: unknown;
  reading_pct?: unknown;
}

const READABLE = new Set(['calibrated', 'uncalibrated', 'offline', 'distrusted']);

function forecastOf(view: CatalogView, slug: string): ForecastRow | undefined {
  return ((view.irrigation?.soil_forecasts ?? []) as ForecastRow[]).find((f) => f.zone === slug);
}

export function probeEntities(view: CatalogView): EntityDescriptor[] {
  const out: EntityDescriptor[] = [];
  for (const [slug, zone] of Object.entries(view.config.zones)) {
    const status = forecastOf(view, slug)?.status;
    if (!zone.soil_sensor_id || typeof status !== 'string' || !READABLE.has(status)) continue;
    const name = zone.display_name ?? slug;
    out.push(
      {
        key: `zone_${slug}_soil_moisture`,
        platform: 'sensor',
        name: `${name} soil moisture`,
        device: { kind: 'service' },
        requires: 'zone:probe',
        zone: slug,
        device_class: 'moisture',
        unit_of_measurement: '%',
        state_class: 'measurement',
        suggested_display_precision: 1,
        state: (v) => {
          const reading = forecastOf(v, slug)?.reading_pct;
          return typeof reading === 'number' && Number.isFinite(reading) ? String(reading) : null;
        },
      },
      {
        key: `zone_${slug}_probe_state`,
        platform: 'sensor',
        name: `${name} soil probe`,
        device: { kind: 'service' },
        requires: 'zone:probe',
        zone: slug,
        entity_category: 'diagnostic',
        icon: 'mdi:water-outline',
        state: (v) => {
          const current = forecastOf(v, slug)?.status;
          return typeof current === 'string' ? current : null;
        },
      },
    );
  }
  return out;
}
