import type { RaincheckConfig } from '../../config/schema';
import type { ControlsState } from '../../irrigation/controls/types';
import type { IrrigationSnapshot } from '../../irrigation/snapshot-schema';
import type { CurrentWeatherSample } from '../../weather/weather-service';

/**
 * One entity Raincheck offers Home Assistant. The catalog builds these from
 * the live state; the MQTT discovery publisher and the sensors manifest are
 * both derived from them, so a topic and its manifest entry cannot disagree.
 */

export type Platform =
  'sensor' | 'binary_sensor' | 'switch' | 'select' | 'number' | 'button' | 'valve' | 'datetime';

/** Home Assistant's sensor state classes (`measurement_angle`: degrees, for wind direction's statistics). */
export type StateClass = 'measurement' | 'measurement_angle' | 'total' | 'total_increasing';

/** Which device an entity belongs to: the service itself or one controller. */
export type DeviceRef = { kind: 'service' } | { kind: 'controller'; id: string; label: string };

export interface EntityDescriptor {
  /** Unique within this instance, `[a-z0-9_]`: the unique_id and topic suffix. */
  key: string;
  platform: Platform;
  name: string;
  device: DeviceRef;
  /** What must exist for this entity to be offered (spec 2.5 capability gating). */
  requires: string;
  zone?: string;
  device_class?: string;
  state_class?: StateClass;
  unit_of_measurement?: string;
  entity_category?: 'config' | 'diagnostic';
  icon?: string;
  suggested_display_precision?: number;
  /** number */
  min?: number;
  max?: number;
  step?: number;
  mode?: 'box' | 'slider';
  /** select, and sensor with device_class enum */
  options?: string[];
  /** valve and switch payloads (the MQTT defaults are spelled out so the manifest is complete). */
  payload_on?: string;
  payload_off?: string;
  /**
   * The state to publish now; null = unknown, published as `None`, the payload
   * Home Assistant's MQTT sensor, datetime, select and valve read as unknown
   * (`PAYLOAD_NONE` in homeassistant/components/mqtt/const.py). Absent for buttons.
   */
  state?: (view: CatalogView) => string | null;
  /** The action body a command payload asks for (POST /irrigation/action shape); null = not understood. */
  command?: (payload: string) => Record<string, unknown> | null;
}

/** Everything the catalog reads. */
export interface CatalogView {
  config: RaincheckConfig;
  irrigation: IrrigationSnapshot | null;
  /** The engine's overall verdict today (water, skip, hold, paused, none). */
  verdict: string | null;
  /** Why: the engine's sentence for the verdict (`verdictReason`), in `deployment.units`. */
  reason: string | null;
  weather: Record<string, CurrentWeatherSample> | null;
  /** The persisted controls (pause, overrides, thresholds). */
  controls: ControlsState;
}

export function isoOrNull(epoch: number | null | undefined): string | null {
  return epoch ? new Date(epoch * 1000).toISOString() : null;
}
