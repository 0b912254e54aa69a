import { configSchema } from '../../server/src/config/schema';
import type { CatalogView } from '../../server/src/ha/entities/descriptor';
import { neutralControls } from '../../server/src/irrigation/controls/types';
import type { IrrigationSnapshot } from '../../server/src/irrigation/snapshot-schema';
import type { CurrentWeatherSample } from '../../server/src/weather/weather-service';

/**
 * Catalog views built by hand for the unit tests of the entity catalog and
 * the MQTT publication: a parsed config (two zones, one bound to a dry-run
 * controller unless told otherwise) and the part of the irrigation snapshot
 * the catalog reads.
 */

export interface ZoneFacts {
  bucket_mm?: number | null;
  planned_run_seconds?: number;
  last_run_epoch?: number;
  running?: boolean;
}

export interface ViewOptions {
  /** Zone slug -> live facts; every zone here is configured. */
  zones?: Record<string, ZoneFacts>;
  controllers?: boolean;
  waterLevel?: number | null;
  flowGpm?: number | null;
  paused?: boolean;
  pauseUntilEpoch?: number;
  weather?: Record<string, number>;
  verdict?: string | null;
  reason?: string | null;
  /** Extra config fields (features, notifications). */
  config?: Record<string, unknown>;
}

export const DEFAULT_ZONES: Record<string, ZoneFacts> = {
  front_lawn: { bucket_mm: -4.2, planned_run_seconds: 900, last_run_epoch: 1_750_000_000 },
  back_beds: { bucket_mm: 1.5, planned_run_seconds: 0, last_run_epoch: 0 },
};

export function catalogViewFixture(options: ViewOptions = {}): CatalogView {
  const zones = options.zones ?? DEFAULT_ZONES;
  const withControllers = options.controllers ?? true;
  const config = configSchema.parse({
    schema_version: 2,
    deployment: { location: { lat: 40.7, lon: -74 } },
    controllers: withControllers
      ? [{ id: 'valves', default: true, enabled: true, kind: 'dry_run', config: {} }]
      : [],
    zones: Object.fromEntries(
      Object.keys(zones).map((slug, i) => [
        slug,
        { display_name: titleCase(slug), controller_station: String(i + 1) },
      ]),
    ),
    ...options.config,
  });
  const snapshot = {
    last_refresh_epoch: 1_750_000_000,
    next_run_state: 'at',
    next_run_epoch: 1_750_050_000,
    pause_until_epoch: options.pauseUntilEpoch ?? 0,
    override_tomorrow: 'none',
    skip_check: { is_paused: options.paused ?? false },
    water_level_capable: options.waterLevel !== undefined,
    water_level_pct: options.waterLevel ?? null,
    flow_connected: options.flowGpm !== undefined,
    flow: { rate_gpm: options.flowGpm ?? null },
    zones: Object.entries(zones).map(([slug, facts]) => ({
      slug,
      name: titleCase(slug),
      bucket_mm: facts.bucket_mm ?? null,
      planned_run_seconds: facts.planned_run_seconds ?? 0,
      last_run_epoch: facts.last_run_epoch ?? 0,
      running: facts.running ?? false,
    })),
  } as unknown as IrrigationSnapshot;
  const weather = options.weather
    ? Object.fromEntries(
        Object.entries(options.weather).map(([field, value]): [string, CurrentWeatherSample] => [
          field,
          {
            value,
            source_id: 'station',
            observed_epoch: 1_750_000_000,
            max_age_s: 300,
            measured: true,
            selection_reason: 'priority',
          },
        ]),
      )
    : null;
  return {
    config,
    irrigation: snapshot,
    verdict: options.verdict === undefined ? 'water' : options.verdict,
    reason: options.reason === undefined ? 'No skip rule applies: water as planned.' : options.reason,
    weather,
    controls: neutralControls(),
  };
}

function titleCase(slug: string): string {
  const text = slug.replace(/_/g, ' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}
