import type { z } from 'zod';
import { SOIL_CATALOG } from '../agronomy/catalogs/soil';
import { SPECIES_CATALOG } from '../agronomy/catalogs/species';
import { SPRINKLER_CATALOG } from '../agronomy/catalogs/sprinklers';
import type { ZodNamespace } from '../core/zod-lazy';
import { controllerKind, knownControllerKinds, knownSourceKinds, sourceKind } from './kinds';

/**
 * GET /config/schema: the config's JSON Schema (draft 2020-12, from the zod
 * schema) made fit to build the settings forms from:
 *
 * - Enum values carry their display names (`oneOf: [{const, title}]`, the
 *   JSON Schema way to label choices): "St. Augustinegrass", not "St augustine".
 * - `schema_version` is `readOnly`: Raincheck sets it, nobody edits it.
 * - A source's or controller's `config` block is described by its kind: each
 *   registered kind adds an `if {kind: const} then {config: <its schema>}`
 *   to the entry, and `kind` lists the registered kinds with their labels.
 *   Secrets are the fields the server redacts (`***redacted***`), by name.
 */

type Node = Record<string, unknown>;

const SIMPLE_LABELS: Record<string, string> = {
  imperial: 'US (°F, inches, mph)',
  metric: 'Metric (°C, mm, km/h)',
  full: 'Full sun',
  partial: 'Partial shade',
  shade: 'Shade',
  measured: 'Measured (catch-cup test)',
  catalog: 'Catalog value for the sprinkler type',
  soil: 'Soil water balance (FAO-56)',
  weekly: 'Weekly budget',
  disabled: 'Off (anyone who can reach it may use it)',
  required: 'Required (sign in or use an API token)',
  auto: 'Automatic',
  penman_monteith: 'FAO-56 Penman-Monteith',
  asce_simplified: 'ASCE standardized (simplified)',
  hargreaves_samani: 'Hargreaves-Samani (temperatures only)',
  source_native: "The forecast provider's own ET0",
  ollama: 'Ollama',
  llamacpp: 'llama.cpp server',
  openai_compat: 'OpenAI-compatible API',
};

/** Display names of every enum value the config uses, catalogs first. */
function enumLabels(): Record<string, string> {
  const labels: Record<string, string> = { ...SIMPLE_LABELS };
  for (const [id, entry] of Object.entries(SPECIES_CATALOG)) labels[id] = entry.label;
  for (const [id, entry] of Object.entries(SOIL_CATALOG)) labels[id] = entry.label;
  for (const [id, entry] of Object.entries(SPRINKLER_CATALOG)) labels[id] = entry.label;
  return labels;
}

/** `{type: 'string', enum: [...]}` -> `{type: 'string', oneOf: [{const, title}, ...]}` wherever every value has a label. */
function labelEnums(node: unknown, labels: Record<string, string>): void {
  if (Array.isArray(node)) return node.forEach((item) => labelEnums(item, labels));
  if (typeof node !== 'object' || node === null) return;
  const n = node as Node;
  const values = n.enum;
  if (Array.isArray(values) && values.every((v) => typeof v === 'string' && v in labels)) {
    delete n.enum;
    n.oneOf = (values as string[]).map((v) => ({ const: v, title: labels[v] }));
  }
  for (const value of Object.values(n)) labelEnums(value, labels);
}

interface KindInfo {
  kind: string;
  label: string;
  schema: z.ZodType;
}

function kindSchema(z: ZodNamespace, info: KindInfo): Node {
  const schema = z.toJSONSchema(info.schema, { io: 'input', unrepresentable: 'any' }) as Node;
  delete schema.$schema;
  return { ...schema, title: `${info.label} settings` };
}

/** Describes an entry's `config` by its `kind`; `kind` offers the registered kinds. */
function attachKinds(z: ZodNamespace, entry: Node | undefined, kinds: KindInfo[]): void {
  if (!entry || kinds.length === 0) return;
  const properties = entry.properties as Node;
  properties.kind = {
    type: 'string',
    oneOf: kinds.map((k) => ({ const: k.kind, title: k.label })),
  };
  entry.allOf = kinds.map((k) => ({
    if: { properties: { kind: { const: k.kind } }, required: ['kind'] },
    then: { properties: { config: kindSchema(z, k) } },
  }));
}

function first(kinds: KindInfo[], kind: string): KindInfo[] {
  return [...kinds.filter((k) => k.kind === kind), ...kinds.filter((k) => k.kind !== kind)];
}

export function configFormSchema(z: ZodNamespace, configSchema: z.ZodType): Node {
  const schema = z.toJSONSchema(configSchema, { io: 'input', unrepresentable: 'any' }) as Node;
  labelEnums(schema, enumLabels());
  const properties = schema.properties as Record<string, Node>;
  if (properties.schema_version) {
    properties.schema_version.readOnly = true;
    properties.schema_version.description = 'Set by Raincheck: the version of this config format.';
  }
  const sources = knownSourceKinds().flatMap((kind) => {
    const info = sourceKind(kind);
    return info ? [{ kind, label: info.label, schema: info.configSchema }] : [];
  });
  const controllers = knownControllerKinds().flatMap((kind) => {
    const info = controllerKind(kind);
    return info ? [{ kind, label: info.label, schema: info.configSchema }] : [];
  });
  // The first choice is what a new entry starts as: the free forecast model, the dry run.
  attachKinds(z, properties.sources?.items as Node | undefined, first(sources, 'open_meteo'));
  attachKinds(z, properties.controllers?.items as Node | undefined, first(controllers, 'dry_run'));
  return schema;
}
