import { z } from 'zod';
import { SOIL_CATALOG } from '../../server/src/agronomy/catalogs/soil';
import { SPECIES_CATALOG } from '../../server/src/agronomy/catalogs/species';
import { SPRINKLER_CATALOG } from '../../server/src/agronomy/catalogs/sprinklers';
import { builtinControllerKinds } from '../../server/src/controllers';
import { builtinSourceKinds } from '../../server/src/weather/sources';
import {
  CONTROLLER_KINDS,
  LOCAL_SOURCE_KINDS,
  SOIL_TEXT,
  SPECIES_TEXT,
  SPRINKLER_TEXT,
  type KindField,
} from '../../web/app/pages/wizard/catalog';

/**
 * The wizard describes kinds and catalog entries the API does not list (see
 * web/app/pages/wizard/catalog.ts). This holds that copy to the server's own
 * definitions, so a renamed kind, a removed config field or a relabelled
 * catalog entry fails here instead of in a user's first run.
 */

interface JsonSchemaNode {
  properties?: Record<string, JsonSchemaNode>;
  anyOf?: JsonSchemaNode[];
}

/** The property names a JSON Schema object accepts at a dotted path (`run.url`), unions included. */
function hasProperty(schema: JsonSchemaNode, dotted: string): boolean {
  const [head, ...rest] = dotted.split('.');
  const candidates = [schema, ...(schema.anyOf ?? [])];
  return candidates.some((node) => {
    const child = node.properties?.[head as string];
    if (!child) return false;
    return rest.length === 0 || hasProperty(child, rest.join('.'));
  });
}

function configJsonSchema(schema: z.ZodType): JsonSchemaNode {
  return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchemaNode;
}

const fieldKeys = (fields: KindField[]) => fields.map((field) => field.key);

describe('the wizard catalog matches the server', () => {
  const controllers = builtinControllerKinds();
  const sources = builtinSourceKinds();

  it.each(CONTROLLER_KINDS.map((info) => [info.kind, info] as const))(
    'controller kind %s exists and takes every field the wizard writes',
    (kind, info) => {
      const definition = controllers.get(kind);
      expect(definition).toBeDefined();
      const schema = configJsonSchema(definition!.configSchema as z.ZodType);
      expect(fieldKeys(info.fields).filter((key) => !hasProperty(schema, key))).toEqual([]);
      expect(hasProperty(schema, 'not_a_config_field')).toBe(false);
    },
  );

  it('offers every controller kind the server drives', () => {
    expect(CONTROLLER_KINDS.map((info) => info.kind).sort()).toEqual([...controllers.keys()].sort());
  });

  it.each(LOCAL_SOURCE_KINDS.map((info) => [info.kind, info] as const))(
    'weather source kind %s exists and takes every field the wizard writes',
    (kind, info) => {
      const definition = sources.get(kind);
      expect(definition).toBeDefined();
      const schema = configJsonSchema(definition!.configSchema as z.ZodType);
      expect(fieldKeys(info.fields).filter((key) => !hasProperty(schema, key))).toEqual([]);
      expect(hasProperty(schema, 'not_a_config_field')).toBe(false);
    },
  );

  it('names species, soils and sprinklers as the agronomy catalogs do', () => {
    for (const [table, catalog] of [
      [SPECIES_TEXT, SPECIES_CATALOG],
      [SOIL_TEXT, SOIL_CATALOG],
      [SPRINKLER_TEXT, SPRINKLER_CATALOG],
    ] as const) {
      expect(Object.keys(table).sort()).toEqual(Object.keys(catalog).sort());
      for (const [key, entry] of Object.entries(catalog)) {
        expect({ key, label: table[key as keyof typeof table]?.label }).toEqual({ key, label: entry.label });
      }
    }
  });
});
