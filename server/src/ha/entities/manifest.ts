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
  platform: z.enum([
    'sensor',
    'binary_sensor',
    'switch',
    'select',
    'number',
    'button',
    'valve',
    'datetime',
    'update',
  ]),
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
  installed_version: z.string().optional().describe('update: the running version'),
  latest_version: z
    .string()
    .nullable()
    .optional()
    .describe('update: the newest release the check found; null until a check succeeded'),
  release_url: z.string().nullable().optional().describe('update: the newest release page'),
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
export type ManifestEntity = z.output<typeof manifestEntitySchema>;

/** What the `update` entity reads: GET /updates' body. */
export interface UpdateFacts {
  current: string;
  latest: string | null;
  update_available: boolean;
  release_url: string | null;
  check_enabled: boolean;
}

/**
 * The `update` entity (Home Assistant's update platform, device class
 * firmware): offered only while the opt-in release check is enabled
 * (capability-gated like every optional entity). Its state is `on` when a
 * newer release exists, `off` when not, null before a check succeeded; the
 * companion integration builds its update entity from this descriptor alone
 * (docs/ha.md).
 */
export function updateEntity(facts: UpdateFacts): ManifestEntity | null {
  if (!facts.check_enabled) return null;
  return {
    key: 'update',
    platform: 'update',
    name: 'Update',
    device: { kind: 'service' },
    requires: 'updates:check_enabled',
    device_class: 'firmware',
    entity_category: 'diagnostic',
    installed_version: facts.current,
    latest_version: facts.latest,
    release_url: facts.release_url,
    commands: false,
    state: facts.latest === null ? null : facts.update_available ? 'on' : 'off',
  };
}

export function buildManifest(
  entities: readonly EntityDescriptor[],
  view: CatalogView,
  nowEpoch: number,
  updates: UpdateFacts | null = null,
): Manifest {
  const update = updates ? updateEntity(updates) : null;
  return {
    schema_version: MANIFEST_SCHEMA_VERSION,
    generated_epoch: nowEpoch,
    entities: [
      ...entities.map((entity) => {
        const { state, command, ...fields } = entity;
        return { ...fields, commands: command !== undefined, state: state ? state(view) : null };
      }),
      ...(update ? [update] : []),
    ],
  };
}

export function manifestJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(manifestSchema, { target: 'draft-2020-12' }) as Record<string, unknown>;
}
