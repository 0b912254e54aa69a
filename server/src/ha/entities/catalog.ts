import {
  OVERRIDE_MODES,
  THRESHOLD_RANGES,
  TOMORROW_MODES,
  type ThresholdKey,
} from '../../irrigation/controls/types';
import { zoneMeter } from '../../config/flow-meter-binding';
import { scheduleSlug } from '../../config/schedule-config';
import type { Zone } from '../../irrigation/snapshot-schema';
import { isoOrNull, type CatalogView, type DeviceRef, type EntityDescriptor } from './descriptor';
import { weatherEntities } from './weather-entities';
import { probeEntities } from './probe-entities';

/**
 * The entity catalog: what Raincheck offers Home Assistant right now, derived
 * from the config and the live snapshots. Capability-gated (spec 2.5,
 * manifest 1.6): a zone's bucket sensor exists only while the zone has a
 * deficit (spec 6.3: removed otherwise), water level only when a controller
 * reports one, weather sensors only for fields the snapshot has. Commands
 * are action bodies for the one action executor (POST /irrigation/action).
 */

/** Seconds a valve opened from Home Assistant (or the run button, with nothing planned) runs. */
export const HA_DEFAULT_RUN_SECONDS = 600;

export const VERDICTS = ['water', 'skip', 'hold', 'paused', 'none'] as const;

/** A metered zone's flow state: its last alarm's kind, `learning` before a baseline exists. */
export const FLOW_STATES = ['normal', 'high', 'low', 'no_flow', 'learning'] as const;

const THRESHOLD_ENTITIES: Record<
  ThresholdKey,
  { name: string; unit: string; device_class: string; step: number }
> = {
  max_wind_mph: { name: 'Max wind', unit: 'mph', device_class: 'wind_speed', step: 0.5 },
  min_temp_f: { name: 'Min temperature', unit: '°F', device_class: 'temperature', step: 1 },
  rain_skip_in: { name: 'Rain skip', unit: 'in', device_class: 'precipitation', step: 0.01 },
};

export function entityCatalog(view: CatalogView): EntityDescriptor[] {
  return [
    ...serviceEntities(view),
    ...zoneEntities(view),
    ...scheduleEntities(view),
    ...probeEntities(view),
    ...weatherEntities(Object.keys(view.weather ?? {})),
  ];
}

function serviceEntities(view: CatalogView): EntityDescriptor[] {
  const service: DeviceRef = { kind: 'service' };
  const entities: EntityDescriptor[] = [
    {
      key: 'pause',
      platform: 'switch',
      name: 'Pause watering',
      device: service,
      requires: 'always',
      icon: 'mdi:pause-circle',
      payload_on: 'ON',
      payload_off: 'OFF',
      state: (v) => onOff(v.irrigation?.skip_check.is_paused === true),
      command: (payload) => onOffCommand(payload, (on) => ({ kind: 'toggle', key: 'irrigation_pause', on })),
    },
    {
      key: 'pause_until',
      // HA's MQTT datetime platform: HA sends `value.isoformat()` (with its offset) on the command
      // topic; automations may also send epoch seconds, or 0 to clear.
      platform: 'datetime',
      name: 'Paused until',
      device: service,
      requires: 'always',
      icon: 'mdi:pause-circle-outline',
      state: (v) => isoOrNull(v.irrigation?.pause_until_epoch),
      command: (payload) => pauseUntilCommand(payload),
    },
    select(
      'global_override',
      'Override',
      OVERRIDE_MODES,
      (v) => v.controls.global_override,
      (mode) => ({
        kind: 'set_global_override',
        mode,
      }),
    ),
    select(
      'override_tomorrow',
      'Override tomorrow',
      TOMORROW_MODES,
      (v) => v.irrigation?.override_tomorrow ?? v.controls.override_tomorrow,
      (mode) => ({ kind: 'set_override_tomorrow', mode }),
    ),
    ...(Object.keys(THRESHOLD_ENTITIES) as ThresholdKey[]).map((key) => thresholdEntity(key)),
    {
      key: 'next_run',
      platform: 'sensor',
      name: 'Next run',
      device: service,
      requires: 'always',
      device_class: 'timestamp',
      state: (v) => (v.irrigation?.next_run_state === 'at' ? isoOrNull(v.irrigation.next_run_epoch) : null),
    },
    {
      key: 'verdict',
      platform: 'sensor',
      name: "Today's verdict",
      device: service,
      requires: 'always',
      device_class: 'enum',
      options: [...VERDICTS],
      icon: 'mdi:clipboard-check-outline',
      state: (v) => v.verdict,
    },
    {
      // Why today's verdict is what it is, in the owner's units (the engine writes them so).
      key: 'reason',
      platform: 'sensor',
      name: "Today's reason",
      device: service,
      requires: 'always',
      icon: 'mdi:text-box-outline',
      state: (v) => (v.reason ? haText(v.reason) : null),
    },
  ];
  if (view.irrigation?.water_level_capable) {
    entities.push({
      key: 'water_level',
      platform: 'sensor',
      name: 'Water level',
      device: service,
      requires: 'controller:water_level',
      unit_of_measurement: '%',
      state_class: 'measurement',
      icon: 'mdi:water-percent',
      state: (v) => numberOrNull(v.irrigation?.water_level_pct),
    });
  }
  if (view.irrigation?.flow_connected) {
    entities.push({
      key: 'flow_rate',
      platform: 'sensor',
      name: 'Flow rate',
      device: service,
      requires: 'controller:flow',
      device_class: 'volume_flow_rate',
      unit_of_measurement: 'gal/min',
      state_class: 'measurement',
      state: (v) => numberOrNull(v.irrigation?.flow.rate_gpm),
    });
  }
  return entities;
}

/** One switch per fixed schedule: on = enabled (set_schedule_enabled, a config save). */
function scheduleEntities(view: CatalogView): EntityDescriptor[] {
  return (view.config.schedules ?? []).map((schedule) => {
    const slug = scheduleSlug(schedule.name);
    const enabled = (v: CatalogView) =>
      (v.config.schedules ?? []).find((s) => scheduleSlug(s.name) === slug)?.enabled === true;
    return {
      key: `schedule_${slug}`,
      platform: 'switch',
      name: `Schedule ${schedule.name}`,
      device: { kind: 'service' },
      requires: 'config:schedule',
      icon: 'mdi:calendar-clock',
      payload_on: 'ON',
      payload_off: 'OFF',
      state: (v) => onOff(enabled(v)),
      command: (payload) =>
        onOffCommand(payload, (on) => ({ kind: 'set_schedule_enabled', schedule: slug, enabled: on })),
    };
  });
}

function zoneEntities(view: CatalogView): EntityDescriptor[] {
  const out: EntityDescriptor[] = [];
  const controllers = new Map(view.config.controllers.map((c) => [c.id, c]));
  const fallback = view.config.controllers.find((c) => c.default)?.id ?? null;
  for (const [slug, zone] of Object.entries(view.config.zones)) {
    const name = zone.display_name ?? slug;
    const controllerId = zone.controller_id ?? fallback;
    const controller = controllerId ? controllers.get(controllerId) : undefined;
    const device: DeviceRef = controller
      ? { kind: 'controller', id: controller.id, label: `${controller.id} (${controller.kind})` }
      : { kind: 'service' };
    const live = (v: CatalogView): Zone | undefined => v.irrigation?.zones.find((z) => z.slug === slug);
    const bucket = live(view)?.bucket_mm;
    if (typeof bucket === 'number' && bucket < 0) {
      out.push({
        key: `zone_${slug}_bucket`,
        platform: 'sensor',
        name: `${name} soil deficit`,
        device,
        requires: 'zone:deficit',
        zone: slug,
        device_class: 'precipitation',
        unit_of_measurement: 'mm',
        state_class: 'measurement',
        suggested_display_precision: 1,
        state: (v) => numberOrNull(live(v)?.bucket_mm),
      });
    }
    out.push(
      {
        key: `zone_${slug}_planned`,
        platform: 'sensor',
        name: `${name} planned run`,
        device,
        requires: 'always',
        zone: slug,
        device_class: 'duration',
        unit_of_measurement: 's',
        state_class: 'measurement',
        state: (v) => numberOrNull(live(v)?.planned_run_seconds),
      },
      {
        key: `zone_${slug}_last_run`,
        platform: 'sensor',
        name: `${name} last run`,
        device,
        requires: 'always',
        zone: slug,
        device_class: 'timestamp',
        state: (v) => isoOrNull(live(v)?.last_run_epoch),
      },
    );
    if (zoneMeter(view.config, slug)) out.push(...flowEntities(slug, name, device));
    if (controller) {
      out.push(
        {
          key: `zone_${slug}_valve`,
          platform: 'valve',
          name,
          device,
          requires: 'controller',
          zone: slug,
          device_class: 'water',
          payload_on: 'OPEN',
          payload_off: 'CLOSE',
          state: (v) => (live(v)?.running ? 'open' : 'closed'),
          command: (payload) => valveCommand(payload, slug),
        },
        {
          key: `zone_${slug}_run`,
          platform: 'button',
          name: `${name} run now`,
          device,
          requires: 'controller',
          zone: slug,
          icon: 'mdi:sprinkler-variant',
          command: (payload) =>
            payload === 'PRESS' ? { kind: 'run', zone: slug, seconds: runNowSeconds(view, slug) } : null,
        },
      );
    }
    out.push(
      select(
        `zone_${slug}_override`,
        `${name} override`,
        OVERRIDE_MODES,
        (v) => v.controls.zone_overrides[slug] ?? 'auto',
        (mode) => ({ kind: 'set_zone_override', zone: slug, mode }),
        device,
        slug,
      ),
    );
  }
  return out;
}

/** A metered zone (config `flow_meter`): its flow state and its learnt baseline. */
function flowEntities(slug: string, name: string, device: DeviceRef): EntityDescriptor[] {
  const flow = (v: CatalogView) => zoneFlowOf(v, slug);
  return [
    {
      key: `zone_${slug}_flow`,
      platform: 'sensor',
      name: `${name} flow`,
      device,
      requires: 'zone:flow_meter',
      zone: slug,
      device_class: 'enum',
      options: [...FLOW_STATES],
      icon: 'mdi:water-alert',
      state: (v) => {
        const zone = flow(v);
        if (!zone) return null;
        const kind = zone.alarm?.kind;
        if (kind) return kind === 'none' ? 'no_flow' : kind;
        return zone.learning ? 'learning' : 'normal';
      },
    },
    {
      key: `zone_${slug}_flow_baseline`,
      platform: 'sensor',
      name: `${name} usual flow`,
      device,
      requires: 'zone:flow_meter',
      zone: slug,
      device_class: 'volume_flow_rate',
      unit_of_measurement: 'gal/min',
      state_class: 'measurement',
      entity_category: 'diagnostic',
      state: (v) => numberOrNull(flow(v)?.baseline_gpm),
    },
  ];
}

interface ZoneFlowView {
  zone: string;
  baseline_gpm: number | null;
  learning: boolean;
  alarm: { kind: string } | null;
}

function zoneFlowOf(view: CatalogView, slug: string): ZoneFlowView | undefined {
  const zones = (view.irrigation?.flow as { zones?: unknown } | undefined)?.zones;
  return Array.isArray(zones) ? (zones as ZoneFlowView[]).find((z) => z.zone === slug) : undefined;
}

function select(
  key: string,
  name: string,
  options: readonly string[],
  state: (v: CatalogView) => string | null,
  command: (mode: string) => Record<string, unknown>,
  device: DeviceRef = { kind: 'service' },
  zone?: string,
): EntityDescriptor {
  return {
    key,
    platform: 'select',
    name,
    device,
    requires: 'always',
    ...(zone ? { zone } : {}),
    options: [...options],
    state,
    command: (payload) => (options.includes(payload) ? command(payload) : null),
  };
}

function thresholdEntity(key: ThresholdKey): EntityDescriptor {
  const spec = THRESHOLD_ENTITIES[key];
  const range = THRESHOLD_RANGES[key];
  return {
    key: `threshold_${key}`,
    platform: 'number',
    name: spec.name,
    device: { kind: 'service' },
    requires: 'always',
    entity_category: 'config',
    device_class: spec.device_class,
    unit_of_measurement: spec.unit,
    min: range.min,
    max: range.max,
    step: spec.step,
    mode: 'box',
    state: (v) => String(v.controls.thresholds[key] ?? v.config.engine.skip_rules[key]),
    command: (payload) => {
      const value = Number(payload);
      return payload.trim() === '' || !Number.isFinite(value) ? null : { kind: 'set_threshold', key, value };
    },
  };
}

function runNowSeconds(view: CatalogView, slug: string): number {
  const planned = view.irrigation?.zones.find((z) => z.slug === slug)?.planned_run_seconds ?? 0;
  return planned > 0 ? planned : HA_DEFAULT_RUN_SECONDS;
}

function valveCommand(payload: string, zone: string): Record<string, unknown> | null {
  if (payload === 'OPEN') return { kind: 'run', zone, seconds: HA_DEFAULT_RUN_SECONDS };
  if (payload === 'CLOSE' || payload === 'STOP') return { kind: 'stop', zone };
  return null;
}

function onOffCommand(
  payload: string,
  body: (on: boolean) => Record<string, unknown>,
): Record<string, unknown> | null {
  if (payload === 'ON') return body(true);
  if (payload === 'OFF') return body(false);
  return null;
}

/** A time with its offset (HA's `isoformat()`, or `Z`): a time without one names no single moment. */
const ZONED_ISO = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

function pauseUntilCommand(payload: string): Record<string, unknown> | null {
  const text = payload.trim();
  if (/^\d+$/.test(text)) return { kind: 'set_pause_until', epoch: Number(text) };
  if (!ZONED_ISO.test(text)) return null;
  const ms = Date.parse(text.replace(' ', 'T'));
  return Number.isFinite(ms) ? { kind: 'set_pause_until', epoch: Math.floor(ms / 1000) } : null;
}

function onOff(on: boolean): string {
  return on ? 'ON' : 'OFF';
}

/** Home Assistant refuses a state longer than 255 characters (core's MAX_LENGTH_STATE_STATE). */
export const HA_MAX_STATE_LENGTH = 255;

/** A sentence as a state HA accepts: whole when it fits, else cut at a word with an ellipsis. */
function haText(text: string): string {
  if (text.length <= HA_MAX_STATE_LENGTH) return text;
  const head = text.slice(0, HA_MAX_STATE_LENGTH - 1);
  const cut = head.lastIndexOf(' ');
  return `${cut > HA_MAX_STATE_LENGTH / 2 ? head.slice(0, cut) : head}…`;
}

function numberOrNull(value: number | null | undefined): string | null {
  return typeof value === 'number' && Number.isFinite(value) ? String(value) : null;
}
