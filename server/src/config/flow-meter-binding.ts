import type { FlowMeterConfig, RaincheckConfig } from './schema';

/**
 * Which flow meter measures which zone (config `flow_meter` on a controller
 * or a zone). A zone's own meter wins; otherwise its controller's meter
 * measures it, shared with the controller's other zones (`shared`: its
 * readings belong to a zone only while that zone is the one open there).
 */

export interface MeterBinding {
  /** `controller:<id>` or `zone:<slug>`: the id its readings travel under. */
  key: string;
  meter: FlowMeterConfig;
  /** The controller whose zones it measures (a zone meter: that zone's controller). */
  controllerId: string | null;
  shared: boolean;
}

export function meterBindings(config: RaincheckConfig): MeterBinding[] {
  const out: MeterBinding[] = [];
  for (const controller of config.controllers) {
    if (controller.enabled && controller.flow_meter) {
      out.push({
        key: `controller:${controller.id}`,
        meter: controller.flow_meter,
        controllerId: controller.id,
        shared: true,
      });
    }
  }
  for (const [slug, zone] of Object.entries(config.zones)) {
    if (zone.flow_meter) {
      out.push({
        key: `zone:${slug}`,
        meter: zone.flow_meter,
        controllerId: zoneController(config, slug),
        shared: false,
      });
    }
  }
  return out;
}

/** The meter that measures a zone, or null when none does. */
export function zoneMeter(config: RaincheckConfig, slug: string): MeterBinding | null {
  const zone = config.zones[slug];
  if (!zone) return null;
  if (zone.flow_meter) {
    return {
      key: `zone:${slug}`,
      meter: zone.flow_meter,
      controllerId: zoneController(config, slug),
      shared: false,
    };
  }
  const controllerId = zoneController(config, slug);
  const controller = config.controllers.find((c) => c.id === controllerId && c.enabled);
  return controller?.flow_meter
    ? {
        key: `controller:${controller.id}`,
        meter: controller.flow_meter,
        controllerId: controller.id,
        shared: true,
      }
    : null;
}

function zoneController(config: RaincheckConfig, slug: string): string | null {
  const own = config.zones[slug]?.controller_id;
  if (own) return own;
  const fallback =
    config.controllers.find((c) => c.default) ??
    (config.controllers.length === 1 ? config.controllers[0] : undefined);
  return fallback?.id ?? null;
}
