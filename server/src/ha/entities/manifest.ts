import { z } from 'zod';
import type { CatalogView, EntityDescriptor } from './descriptor';

/**
 * The sensors manifest (spec 4.7 `/sensors/manifest`, manifest schema 1.6):
 * the declarative inventory a companion integration builds its entities
 * from, derived from the same catalog as the MQTT discovery topics. Number
 * descriptors carry `min`, `max`, `step` (the thresholds carry the
 * server-enforced ranges); only capability-backed entities are listed.
 * `integration-manifest/manifest.schema.json` is this zod schema as JSON
 * Schema (a test keeps the file in step).
 */

export const MANIFEST_SCHEMA_VERSION = '1.6';

const device = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('service') }),
  z.object({ kind: z.literal('controller'), id: z.string(), label: z.string() }),
]);

export const manifestEntitySchema = z.object({
  key: z.string().regex(/^[a-z0-9_]+$/),
  platform: z.enum(['sensor', 'binary_sensor', 'switch', 'select', 'number', 'button', 'valve', 'datetime']),
  name: z.string(),
  device,
  requires: z
    .string()
    .describe(
      'what backs the entity: always, zone:deficit, zone:probe, controller, controller:<capability>, weather:<field>',
    ),
  zone: z.string().optional(),
  device_class: z.string().optional(),
  state_class: z.enum(['measurement', 'measurement_angle', 'total', 'total_increasing']).optional(),
  unit_of_measurement: z.string().optional(),
  entity_category: z.enum(['config', 'diagnostic']).optional(),
  icon: z.string().optional(),
  suggested_display_precision: z.number().int().optional(),
  min: z.number().optional(),
  max: z.number().optional(),
  step: z.number().optional(),
  mode: z.enum(['box', 'slider']).optional(),
  options: z.array(z.string()).optional(),
  payload_on: z.string().optional(),
  payload_off: z.string().optional(),
  commands: z
    .boolean()
    .describe('the entity accepts commands (POST /irrigation/action bodies, or its MQTT command topic)'),
  state: z.string().nullable().describe('the current state as published; null = unknown'),
});

export const manifestSchema = z.object({
  schema_version: z.literal(MANIFEST_SCHEMA_VERSION),
  generated_epoch: z.number().int(),
  entities: z.array(manifestEntitySchema),
});

export type Manifest = z.output<typeof manifestSchema>;

export function buildManifest(
  entities: readonly EntityDescriptor[],
  view: CatalogView,
  nowEpoch: number,
): Manifest {
  return {
    schema_version: MANIFEST_SCHEMA_VERSION,
    generated_epoch: nowEpoch,
    entities: entities.map((entity) => {
      const { state, command, ...fields } = entity;
      return { ...fields, commands: command !== undefined, state: state ? state(view) : null };
    }),
  };
}

export function manifestJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(manifestSchema, { target: 'draft-2020-12' }) as Record<string, unknown>;
}
