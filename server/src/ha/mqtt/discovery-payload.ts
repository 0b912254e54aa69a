import type { EntityDescriptor } from '../entities/descriptor';
import { OFFLINE, ONLINE, type TopicLayout } from './topics';

/**
 * One entity's discovery config, built from its catalog descriptor only (no
 * entity is described anywhere else). Fields follow Home Assistant's MQTT
 * discovery: `default_entity_id` is the current way to suggest the entity
 * id; `object_id` is kept alongside for Home Assistant before 2025.10
 * (newer versions prefer `default_entity_id` when both are present).
 */

export interface DiscoveryIdentity {
  topics: TopicLayout;
  /** The service version (device sw_version, origin sw). */
  version: string;
  /** The project's repository (origin url). */
  repository: string;
}

export function discoveryPayload(entity: EntityDescriptor, id: DiscoveryIdentity): Record<string, unknown> {
  const { topics } = id;
  const serviceDevice = `raincheck_${topics.installId}`;
  const payload: Record<string, unknown> = {
    name: entity.name,
    unique_id: `raincheck_${topics.installId}_${entity.key}`,
    default_entity_id: `${entity.platform}.raincheck_${entity.key}`,
    object_id: `raincheck_${entity.key}`,
  };
  if (entity.platform !== 'button') payload.state_topic = topics.state(entity.key);
  if (entity.command) payload.command_topic = topics.command(entity.key);
  payload.device =
    entity.device.kind === 'service'
      ? {
          identifiers: [serviceDevice],
          name: 'Raincheck',
          manufacturer: 'Raincheck',
          model: 'Raincheck service',
          sw_version: id.version,
        }
      : {
          identifiers: [`${serviceDevice}_controller_${entity.device.id}`],
          name: entity.device.label,
          via_device: serviceDevice,
        };
  payload.origin = { name: 'Raincheck', sw: id.version, url: id.repository };
  payload.availability = [
    { topic: topics.status, payload_available: ONLINE, payload_not_available: OFFLINE },
  ];
  copy(payload, entity, [
    'device_class',
    'state_class',
    'unit_of_measurement',
    'entity_category',
    'icon',
    'suggested_display_precision',
    'min',
    'max',
    'step',
    'mode',
    'options',
  ]);
  Object.assign(payload, platformPayloads(entity));
  return payload;
}

function platformPayloads(entity: EntityDescriptor): Record<string, unknown> {
  switch (entity.platform) {
    case 'switch':
      return {
        payload_on: entity.payload_on ?? 'ON',
        payload_off: entity.payload_off ?? 'OFF',
        state_on: 'ON',
        state_off: 'OFF',
      };
    case 'valve':
      return {
        payload_open: entity.payload_on ?? 'OPEN',
        payload_close: entity.payload_off ?? 'CLOSE',
        state_open: 'open',
        state_closed: 'closed',
        reports_position: false,
      };
    case 'button':
      return { payload_press: 'PRESS' };
    default:
      return {};
  }
}

function copy(
  target: Record<string, unknown>,
  entity: EntityDescriptor,
  keys: (keyof EntityDescriptor)[],
): void {
  for (const key of keys) {
    const value = entity[key];
    if (value !== undefined) target[key] = Array.isArray(value) ? [...(value as unknown[])] : value;
  }
}
