/**
 * The pure half of the form generated from JSON Schema (schema-form.tsx):
 * JSON Schema node -> field description, immutable edits of the document at
 * a path, text <-> value for each input kind, labels, and the mapping of the
 * server's validation paths (`$.zones.front_lawn.max_run_minutes`) onto the
 * fields the form rendered. No preact, no DOM.
 */

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };
export type Path = (string | number)[];

/** The subset of JSON Schema (2020-12, as zod's toJSONSchema writes it) the generator reads. */
export interface JsonSchema {
  type?: string | string[];
  title?: string;
  description?: string;
  default?: unknown;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  propertyNames?: JsonSchema;
  items?: JsonSchema | JsonSchema[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  minItems?: number;
  readOnly?: boolean;
  allOf?: JsonSchema[];
  if?: JsonSchema;
  then?: JsonSchema;
}

interface Common {
  title?: string;
  description?: string;
  /** The schema's default, when it is plain JSON. */
  default?: JsonValue;
  /** `null` is an accepted value (anyOf [X, null] or type [X, 'null']). */
  nullable: boolean;
  /** Set by the service, not by the user (`readOnly`): shown, never edited. */
  readOnly?: boolean;
}

/**
 * An object whose shape depends on one key's value (a source's or
 * controller's `config` by its `kind`): the schema's `allOf` of
 * `if {key: const} then {properties}`.
 */
export interface Variants {
  key: string;
  /** Value of `key` -> the properties that value adds or replaces. */
  cases: Record<string, Property[]>;
}

export interface Property {
  key: string;
  spec: FieldSpec;
  required: boolean;
}

export type Primitive = 'string' | 'number' | 'integer' | 'boolean';

export type FieldSpec = Common &
  (
    | { kind: 'object'; properties: Property[]; variants?: Variants }
    /** An object keyed by free names (zones.<slug>), every value of one shape. */
    | { kind: 'record'; value: FieldSpec; keyPattern?: string }
    /** An array of objects: one nested fieldset per entry. */
    | { kind: 'array'; item: FieldSpec }
    /** An array of primitives: edited as one item per line. */
    | { kind: 'list'; item: Primitive; enumValues?: JsonValue[] }
    | { kind: 'string'; minLength?: number; maxLength?: number; pattern?: string }
    | { kind: 'number' | 'integer'; min?: number; max?: number; exclusiveMin?: number; exclusiveMax?: number }
    | { kind: 'boolean' }
    | { kind: 'enum'; options: (string | number | boolean)[]; labels?: Record<string, string> }
    /**
     * Anything the generator cannot render: a JSON textarea, so nothing is
     * lost. `any`: the schema accepts anything (an empty schema, e.g. a
     * deprecated key), so the form shows it only when the document has it.
     */
    | { kind: 'json'; any?: boolean }
  );

export type FieldKind = FieldSpec['kind'];

function isJson(value: unknown): value is JsonValue {
  if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) return true;
  if (Array.isArray(value)) return value.every(isJson);
  if (typeof value === 'object') return Object.values(value as object).every(isJson);
  return false;
}

function isNullSchema(node: JsonSchema): boolean {
  return (
    node.type === 'null' || (Array.isArray(node.type) && node.type.length === 1 && node.type[0] === 'null')
  );
}

function isEmptySchema(node: JsonSchema): boolean {
  return (
    Object.keys(node).filter((k) => k !== 'description' && k !== 'title' && k !== 'default').length === 0
  );
}

/** Describes one schema node; anything outside the supported subset becomes `json`. */
export function describeSchema(node: JsonSchema | boolean | undefined): FieldSpec {
  if (node === undefined || typeof node === 'boolean') return { kind: 'json', nullable: true };
  const common: Common = { nullable: false };
  if (node.title) common.title = node.title;
  if (node.description) common.description = node.description;
  if (node.default !== undefined && isJson(node.default)) common.default = node.default;
  if (node.readOnly) common.readOnly = true;

  const labelled = labelledOptions(node.oneOf ?? node.anyOf);
  if (labelled) return { ...common, kind: 'enum', ...labelled };

  const union = node.anyOf ?? node.oneOf;
  if (union) {
    const others = union.filter((option) => !isNullSchema(option));
    const nullable = others.length < union.length;
    if (others.length === 1) {
      const inner = describeSchema(others[0]);
      return {
        ...inner,
        ...common,
        description: common.description ?? inner.description,
        title: common.title ?? inner.title,
        default: common.default ?? inner.default,
        nullable: nullable || inner.nullable,
      } as FieldSpec;
    }
    return { ...common, kind: 'json', nullable };
  }

  let types = Array.isArray(node.type) ? node.type : node.type ? [node.type] : [];
  if (types.includes('null')) {
    common.nullable = true;
    types = types.filter((t) => t !== 'null');
  }

  if (node.enum && node.enum.length > 0) {
    const options = node.enum.filter((v) => v !== null);
    if (options.length < node.enum.length) common.nullable = true;
    if (options.every((v) => ['string', 'number', 'boolean'].includes(typeof v)))
      return { ...common, kind: 'enum', options: options as (string | number | boolean)[] };
    return { ...common, kind: 'json' };
  }
  if (node.const !== undefined && ['string', 'number', 'boolean'].includes(typeof node.const)) {
    return { ...common, kind: 'enum', options: [node.const as string | number | boolean] };
  }
  if (types.length !== 1) {
    if (isEmptySchema(node)) return { ...common, kind: 'json', nullable: true, any: true };
    return { ...common, kind: 'json' };
  }

  switch (types[0]) {
    case 'string': {
      const spec: FieldSpec = { ...common, kind: 'string' };
      if (node.minLength !== undefined) spec.minLength = node.minLength;
      if (node.maxLength !== undefined) spec.maxLength = node.maxLength;
      if (node.pattern !== undefined) spec.pattern = node.pattern;
      return spec;
    }
    case 'number':
    case 'integer': {
      const spec: FieldSpec = { ...common, kind: types[0] };
      // zod writes the safe-integer bounds for a bare int(): those are no range to show.
      if (node.minimum !== undefined && Math.abs(node.minimum) < Number.MAX_SAFE_INTEGER)
        spec.min = node.minimum;
      if (node.maximum !== undefined && Math.abs(node.maximum) < Number.MAX_SAFE_INTEGER)
        spec.max = node.maximum;
      if (node.exclusiveMinimum !== undefined) spec.exclusiveMin = node.exclusiveMinimum;
      if (node.exclusiveMaximum !== undefined) spec.exclusiveMax = node.exclusiveMaximum;
      return spec;
    }
    case 'boolean':
      return { ...common, kind: 'boolean' };
    case 'object':
      return describeObject(node, common);
    case 'array':
      return describeArray(node, common);
    default:
      return { ...common, kind: 'json' };
  }
}

/** `oneOf: [{const, title}, ...]` (labelled choices), possibly with a null option; null when it is not that. */
function labelledOptions(
  union: JsonSchema[] | undefined,
): { options: (string | number | boolean)[]; labels: Record<string, string> } | null {
  if (!union) return null;
  const choices = union.filter((option) => !isNullSchema(option));
  if (choices.length === 0 || !choices.every((c) => ['string', 'number', 'boolean'].includes(typeof c.const)))
    return null;
  const labels: Record<string, string> = {};
  for (const choice of choices) if (choice.title) labels[String(choice.const)] = choice.title;
  return { options: choices.map((c) => c.const as string | number | boolean), labels };
}

/** `allOf: [{if: {properties: {kind: {const}}}, then: {properties}}]` -> the variants of the object, by kind. */
function describeVariants(node: JsonSchema): Variants | undefined {
  const cases: Record<string, Property[]> = {};
  let key: string | null = null;
  for (const part of node.allOf ?? []) {
    const condition = Object.entries(part.if?.properties ?? {});
    const [name, test] = condition[0] ?? [];
    if (condition.length !== 1 || !name || !test || !['string', 'number'].includes(typeof test.const))
      continue;
    if (key !== null && key !== name) continue;
    key = name;
    const required = new Set(part.then?.required ?? []);
    cases[String(test.const)] = Object.entries(part.then?.properties ?? {}).map(([property, schema]) => ({
      key: property,
      spec: describeSchema(schema),
      required: required.has(property),
    }));
  }
  return key === null ? undefined : { key, cases };
}

/** The object's properties for its current value: a variant's replace the base ones with the same key. */
export function propertiesFor(spec: FieldSpec, value: JsonValue | undefined): Property[] {
  if (spec.kind !== 'object') return [];
  const variants = spec.variants;
  const chosen = variants && isObject(value) ? variants.cases[String(value[variants.key])] : undefined;
  if (!chosen) return spec.properties;
  const replaced = new Map(chosen.map((p) => [p.key, p]));
  // A variant's field keeps what the base said of it (required, its default: `config` defaults to {}).
  const base = spec.properties.map((p) => {
    const variant = replaced.get(p.key);
    if (!variant) return p;
    const merged = { ...variant.spec, default: variant.spec.default ?? p.spec.default } as FieldSpec;
    return { key: p.key, spec: merged, required: p.required || variant.required };
  });
  const added = chosen.filter((p) => !spec.properties.some((b) => b.key === p.key));
  return [...base, ...added];
}

function describeObject(node: JsonSchema, common: Common): FieldSpec {
  const properties = node.properties ?? {};
  const keys = Object.keys(properties);
  const extra = node.additionalProperties;
  if (keys.length === 0 && extra !== undefined && extra !== false) {
    const value = describeSchema(extra === true ? {} : extra);
    // A record of unknown values (a kind's own config block) is one JSON field, not a JSON field per key.
    if (value.kind === 'json') return { ...common, kind: 'json' };
    const spec: FieldSpec = { ...common, kind: 'record', value };
    if (node.propertyNames?.pattern) spec.keyPattern = node.propertyNames.pattern;
    return spec;
  }
  if (keys.length === 0) return { ...common, kind: 'json' };
  const required = new Set(node.required ?? []);
  const variants = describeVariants(node);
  return {
    ...common,
    kind: 'object',
    properties: keys.map((key) => ({
      key,
      spec: describeSchema(properties[key]),
      required: required.has(key),
    })),
    ...(variants ? { variants } : {}),
  };
}

function describeArray(node: JsonSchema, common: Common): FieldSpec {
  if (node.items === undefined || Array.isArray(node.items)) return { ...common, kind: 'json' };
  const item = describeSchema(node.items);
  if (item.kind === 'object') return { ...common, kind: 'array', item };
  if (item.nullable) return { ...common, kind: 'json' };
  if (item.kind === 'string' || item.kind === 'number' || item.kind === 'integer' || item.kind === 'boolean')
    return { ...common, kind: 'list', item: item.kind };
  if (item.kind === 'enum') {
    const first = item.options[0];
    const primitive: Primitive =
      typeof first === 'number' ? 'number' : typeof first === 'boolean' ? 'boolean' : 'string';
    return { ...common, kind: 'list', item: primitive, enumValues: item.options };
  }
  return { ...common, kind: 'json' };
}

// ---------------------------------------------------------------- document edits

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function getAt(doc: JsonValue | undefined, path: Path): JsonValue | undefined {
  let node: JsonValue | undefined = doc;
  for (const part of path) {
    if (typeof part === 'number') {
      if (!Array.isArray(node)) return undefined;
      node = node[part];
    } else {
      if (!isObject(node)) return undefined;
      node = Object.prototype.hasOwnProperty.call(node, part) ? node[part] : undefined;
    }
  }
  return node;
}

/**
 * A copy of `doc` with `value` at `path`; `undefined` removes an object key
 * (array entries are removed with removeAt). Missing parents are created;
 * objects keep their key order, so an edit moves nothing in the saved file.
 */
export function setAt(
  doc: JsonValue | undefined,
  path: Path,
  value: JsonValue | undefined,
): JsonValue | undefined {
  if (path.length === 0) return value;
  const [head, ...rest] = path as [string | number, ...Path];
  if (typeof head === 'number') {
    const list = Array.isArray(doc) ? [...doc] : [];
    const next = setAt(list[head], rest, value);
    if (next === undefined) return list;
    list[head] = next;
    return list;
  }
  const object: JsonObject = isObject(doc) ? { ...doc } : {};
  const next = setAt(object[head], rest, value);
  if (next === undefined) delete object[head];
  else object[head] = next;
  return object;
}

/** A copy of `doc` without the array entry or object key at `path`. */
export function removeAt(doc: JsonValue | undefined, path: Path): JsonValue | undefined {
  if (path.length === 0) return undefined;
  const parentPath = path.slice(0, -1);
  const last = path[path.length - 1] as string | number;
  const parent = getAt(doc, parentPath);
  if (typeof last === 'number' && Array.isArray(parent)) {
    return setAt(
      doc,
      parentPath,
      parent.filter((_, i) => i !== last),
    );
  }
  return setAt(doc, path, undefined);
}

/** The starting value of a new entry or an added optional section. */
export function initialValue(spec: FieldSpec): JsonValue {
  if (spec.default !== undefined) return structuredClone(spec.default);
  switch (spec.kind) {
    case 'object': {
      const value: JsonObject = {};
      for (const property of spec.properties) {
        if (!property.required) continue;
        const child = property.spec;
        if (child.default !== undefined) value[property.key] = structuredClone(child.default);
        else if (child.kind === 'string') value[property.key] = '';
        else if (child.kind === 'boolean') value[property.key] = false;
        else if (child.kind === 'object' || child.kind === 'record')
          value[property.key] = initialValue(child);
        else if (child.kind === 'array' || child.kind === 'list') value[property.key] = [];
        else if (child.kind === 'enum' && child.options[0] !== undefined)
          value[property.key] = child.options[0];
      }
      // A new entry of a kind starts with that kind's own settings.
      const variants = spec.variants;
      const chosen = variants ? variants.cases[String(value[variants.key])] : undefined;
      for (const property of chosen ?? []) {
        const start = initialValue(property.spec);
        // An open block (JSON) keeps the base schema's start (`config: {}`) rather than null.
        if (start !== null || !(property.key in value)) value[property.key] = start;
      }
      return value;
    }
    case 'record':
      return {};
    case 'array':
    case 'list':
      return [];
    case 'string':
      return '';
    case 'boolean':
      return false;
    case 'enum':
      return spec.options[0] ?? null;
    default:
      return null;
  }
}

// ---------------------------------------------------------------- input text <-> value

export type Parsed = { ok: true; value: JsonValue | undefined } | { ok: false; message: string };

/** What an empty input stands for: null when the schema allows it, else absent (the server's default applies). */
function emptyValue(spec: FieldSpec, required: boolean): JsonValue | undefined {
  if (spec.nullable) return null;
  if (required && spec.kind === 'string') return '';
  return undefined;
}

export function formatInput(spec: FieldSpec, value: JsonValue | undefined): string {
  if (value === undefined || value === null) return '';
  switch (spec.kind) {
    case 'list':
      return Array.isArray(value)
        ? value.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join('\n')
        : '';
    case 'json':
      return JSON.stringify(value, null, 2);
    case 'enum':
      return JSON.stringify(value);
    default:
      return typeof value === 'string' ? value : JSON.stringify(value);
  }
}

/**
 * A number out of input text. Ranges are checked only with `checkRange`: the
 * form leaves them to the server, whose message is shown at the field.
 */
export function parseNumber(
  spec: FieldSpec,
  text: string,
  checkRange = false,
): { ok: true; value: number } | { ok: false; message: string } {
  const trimmed = text.trim();
  const value = Number(trimmed);
  if (trimmed === '' || !Number.isFinite(value)) return { ok: false, message: `“${text}” is not a number` };
  if (spec.kind === 'integer' && !Number.isInteger(value))
    return { ok: false, message: 'enter a whole number' };
  if (checkRange && (spec.kind === 'number' || spec.kind === 'integer')) {
    const range = rangeText(spec);
    if (spec.min !== undefined && value < spec.min) return { ok: false, message: `must be ${range}` };
    if (spec.max !== undefined && value > spec.max) return { ok: false, message: `must be ${range}` };
    if (spec.exclusiveMin !== undefined && value <= spec.exclusiveMin)
      return { ok: false, message: `must be ${range}` };
    if (spec.exclusiveMax !== undefined && value >= spec.exclusiveMax)
      return { ok: false, message: `must be ${range}` };
  }
  return { ok: true, value };
}

/** "between 5 and 360", "above 0 and at most 500", "at least 0". */
export function rangeText(spec: FieldSpec): string {
  if (spec.kind !== 'number' && spec.kind !== 'integer') return '';
  const low =
    spec.min !== undefined
      ? { v: spec.min, open: false }
      : spec.exclusiveMin !== undefined
        ? { v: spec.exclusiveMin, open: true }
        : null;
  const high =
    spec.max !== undefined
      ? { v: spec.max, open: false }
      : spec.exclusiveMax !== undefined
        ? { v: spec.exclusiveMax, open: true }
        : null;
  if (low && high && !low.open && !high.open) return `between ${low.v} and ${high.v}`;
  const parts: string[] = [];
  if (low) parts.push(low.open ? `above ${low.v}` : `at least ${low.v}`);
  if (high) parts.push(high.open ? `below ${high.v}` : `at most ${high.v}`);
  return parts.join(' and ');
}

/** The value an input's text stands for, or why it stands for none. */
export function parseInput(spec: FieldSpec, text: string, required: boolean): Parsed {
  const blank = text.trim() === '';
  switch (spec.kind) {
    case 'string':
      return { ok: true, value: text === '' ? emptyValue(spec, required) : text };
    case 'number':
    case 'integer': {
      if (blank) return { ok: true, value: emptyValue(spec, required) };
      const parsed = parseNumber(spec, text);
      return parsed.ok ? { ok: true, value: parsed.value } : parsed;
    }
    case 'boolean':
      return { ok: true, value: text === 'true' };
    case 'enum': {
      if (text === '') return { ok: true, value: emptyValue(spec, required) };
      try {
        const value = JSON.parse(text) as JsonValue;
        return spec.options.includes(value as string)
          ? { ok: true, value }
          : { ok: false, message: 'not an option' };
      } catch {
        return { ok: false, message: 'not an option' };
      }
    }
    case 'list': {
      const lines = text
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line !== '');
      if (lines.length === 0) return { ok: true, value: spec.nullable ? null : required ? [] : undefined };
      const values: JsonValue[] = [];
      for (const line of lines) {
        if (spec.item === 'string') values.push(line);
        else if (spec.item === 'boolean') {
          if (line !== 'true' && line !== 'false')
            return { ok: false, message: `“${line}” is not true or false` };
          values.push(line === 'true');
        } else {
          const parsed = parseNumber({ kind: spec.item, nullable: false }, line);
          if (!parsed.ok) return parsed;
          values.push(parsed.value);
        }
      }
      if (spec.enumValues) {
        const wrong = values.find((v) => !spec.enumValues?.includes(v));
        if (wrong !== undefined)
          return { ok: false, message: `“${String(wrong)}” is not one of ${spec.enumValues.join(', ')}` };
      }
      return { ok: true, value: values };
    }
    default: {
      if (blank) return { ok: true, value: spec.nullable || !required ? undefined : null };
      try {
        return { ok: true, value: JSON.parse(text) as JsonValue };
      } catch (err) {
        return { ok: false, message: `not valid JSON: ${(err as Error).message}` };
      }
    }
  }
}

// ---------------------------------------------------------------- labels

const WORDS: Record<string, string> = {
  id: 'ID',
  url: 'URL',
  api: 'API',
  llm: 'LLM',
  mqtt: 'MQTT',
  smtp: 'SMTP',
  ntfy: 'ntfy',
  vapid: 'VAPID',
  ha: 'HA',
  et0: 'ET0',
  iana: 'IANA',
  tls: 'TLS',
  starttls: 'STARTTLS',
  cidr: 'CIDR',
  md5: 'MD5',
  lat: 'Latitude',
  lon: 'Longitude',
  mad: 'MAD',
  ttl: 'TTL',
  udp: 'UDP',
  http: 'HTTP',
  mp: 'MP',
  esp: 'ESP',
  ip: 'IP',
};

/** Unit suffixes of key names (`max_wind_mph`) shown as a unit in brackets. */
const UNITS: [string[], string][] = [
  [['mm', 'hr'], 'mm/h'],
  [['in', 'hr'], 'in/h'],
  [['mph'], 'mph'],
  [['mm'], 'mm'],
  [['in'], 'in'],
  [['pct'], '%'],
  [['f'], '°F'],
  [['s'], 's'],
  [['m'], 'm'],
  [['sqft'], 'sq ft'],
  [['days'], 'days'],
  [['minutes'], 'minutes'],
];

/** `max_run_minutes` -> "Max run minutes", `precip_rate_mm_hr` -> "Precip rate (mm/h)", `lat` -> "Latitude". */
export function humanise(key: string): string {
  const parts = key.split(/[_\s]+|(?<=[a-z])(?=[A-Z])/).filter(Boolean);
  if (parts.length === 0) return key;
  let unit: string | null = null;
  for (const [suffix, label] of UNITS) {
    if (
      parts.length > suffix.length &&
      suffix.every((s, i) => parts[parts.length - suffix.length + i]?.toLowerCase() === s)
    ) {
      // "days" and "minutes" read fine as words: keep them in the label.
      if (label === 'days' || label === 'minutes') break;
      unit = label;
      parts.splice(parts.length - suffix.length, suffix.length);
      break;
    }
  }
  const words = parts.map((part) => WORDS[part.toLowerCase()] ?? part.toLowerCase());
  const first = words[0] as string;
  words[0] = first === first.toLowerCase() ? first.charAt(0).toUpperCase() + first.slice(1) : first;
  return unit ? `${words.join(' ')} (${unit})` : words.join(' ');
}

/** "Sources" -> "Source", "Controllers" -> "Controller" (entry legends). */
export function singular(label: string): string {
  if (/ies$/.test(label)) return label.replace(/ies$/, 'y');
  if (/[^s]s$/.test(label)) return label.slice(0, -1);
  return label;
}

/**
 * An enum option as shown: the schema's title for it ("St. Augustinegrass"),
 * else its words, with the usual abbreviations (`mp_rotator` -> "MP rotator").
 */
export function optionLabel(option: string | number | boolean, labels?: Record<string, string>): string {
  const titled = labels?.[String(option)];
  if (titled) return titled;
  if (typeof option !== 'string') return String(option);
  return humanise(option);
}

/** A schema description as a help sentence: capitalised, ending with a full stop; "null" reads "empty". */
export function sentence(text: string): string {
  const trimmed = text.trim().replace(/\bnull\b/g, 'empty');
  if (trimmed === '') return '';
  const capital = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}

export function fieldLabel(key: string, spec: FieldSpec): string {
  return spec.title ?? humanise(key);
}

// ---------------------------------------------------------------- secrets

export const REDACTED = '***redacted***';
const SECRET_KEY = /(^|_)(key|apikey|token|password|passwd|secret|passkey|password_md5|webhook_url)$/i;

/** Key names whose values the server redacts (mirrors the server's rule; display only). */
export function isSecretKey(key: string | number | undefined): boolean {
  return typeof key === 'string' && SECRET_KEY.test(key);
}

// ---------------------------------------------------------------- paths, ids, validation messages

/** The server's report path for a form path: `$.zones.front_lawn`, `$.sources[0].id`, `$.zones["a-b"]`. */
export function formatPath(path: Path): string {
  return path.reduce<string>((acc, part) => {
    if (typeof part === 'number') return `${acc}[${part}]`;
    return /^[A-Za-z_][A-Za-z0-9_]*$/.test(part) ? `${acc}.${part}` : `${acc}[${JSON.stringify(part)}]`;
  }, '$');
}

/** The inverse of formatPath; null when the text is not such a path. */
export function parsePath(text: string): Path | null {
  if (!text.startsWith('$')) return null;
  const path: Path = [];
  let i = 1;
  while (i < text.length) {
    const rest = text.slice(i);
    const dotted = /^\.([A-Za-z_$][A-Za-z0-9_$-]*)/.exec(rest);
    if (dotted) {
      path.push(dotted[1] as string);
      i += dotted[0].length;
      continue;
    }
    const index = /^\[(\d+)\]/.exec(rest);
    if (index) {
      path.push(Number(index[1]));
      i += index[0].length;
      continue;
    }
    const quoted = /^\[("(?:[^"\\]|\\.)*")\]/.exec(rest);
    if (quoted) {
      try {
        path.push(JSON.parse(quoted[1] as string) as string);
      } catch {
        return null;
      }
      i += quoted[0].length;
      continue;
    }
    return null;
  }
  return path;
}

/** A DOM id for a field path, unique per path: `cfg-zones-front_lawn-max_run_minutes`. */
export function fieldId(path: Path, prefix = 'cfg'): string {
  const parts = path.map((part) =>
    String(part).replace(/[^A-Za-z0-9_]/g, (c) => `-${c.charCodeAt(0).toString(16)}-`),
  );
  return [prefix, ...parts].join('-');
}

export interface ReportEntry {
  code: string;
  path: string;
  message: string;
}

export interface ValidationReport {
  ok?: boolean;
  errors: ReportEntry[];
  warnings: ReportEntry[];
  note?: string;
}

export interface PlacedEntry extends ReportEntry {
  severity: 'error' | 'warning';
  /** formatPath() of the field or fieldset it is shown at; null when no rendered field matches. */
  field: string | null;
}

/**
 * Puts each report entry at the deepest rendered field its path lies in: an
 * error about `$.sources[0].config.bind_addr` goes to the JSON field of
 * `$.sources[0].config`, one about `$.controllers` to that fieldset. Entries
 * whose path matches nothing rendered keep `field: null` (summary only).
 */
export function placeEntries(
  report: Partial<ValidationReport> | null | undefined,
  rendered: ReadonlySet<string>,
): PlacedEntry[] {
  const place = (entry: ReportEntry, severity: PlacedEntry['severity']): PlacedEntry => {
    const path = parsePath(entry.path);
    let field: string | null = null;
    if (path) {
      for (let length = path.length; length > 0 && field === null; length -= 1) {
        const key = formatPath(path.slice(0, length));
        if (rendered.has(key)) field = key;
      }
    }
    return { ...entry, severity, field };
  };
  return [
    ...(report?.errors ?? []).map((e) => place(e, 'error')),
    ...(report?.warnings ?? []).map((e) => place(e, 'warning')),
  ];
}

/** Every path the form renders as a field or fieldset (formatPath keys), for placeEntries. */
export function renderedPaths(spec: FieldSpec, doc: JsonValue | undefined, path: Path = []): Set<string> {
  const out = new Set<string>();
  const walk = (node: FieldSpec, value: JsonValue | undefined, at: Path) => {
    if (at.length > 0) out.add(formatPath(at));
    const shown = value ?? node.default;
    switch (node.kind) {
      case 'object':
        if (at.length > 0 && (shown === undefined || shown === null)) return;
        for (const property of propertiesFor(node, shown))
          walk(property.spec, isObject(shown) ? shown[property.key] : undefined, [...at, property.key]);
        return;
      case 'record':
        if (isObject(shown)) for (const key of Object.keys(shown)) walk(node.value, shown[key], [...at, key]);
        return;
      case 'array':
        if (Array.isArray(shown)) shown.forEach((item, i) => walk(node.item, item, [...at, i]));
        return;
      default:
        return;
    }
  };
  walk(spec, doc, path);
  return out;
}

/** A validation report out of an API failure body (`{validation: {...}}`), or null. */
export function reportOf(body: unknown): ValidationReport | null {
  if (!isObject(body as JsonValue)) return null;
  const validation = (body as JsonObject).validation;
  if (!isObject(validation)) return null;
  const entries = (list: JsonValue | undefined): ReportEntry[] =>
    Array.isArray(list)
      ? list.filter(isObject).map((e) => ({
          code: typeof e.code === 'string' ? e.code : '',
          path: typeof e.path === 'string' ? e.path : '$',
          message: typeof e.message === 'string' ? e.message : JSON.stringify(e),
        }))
      : [];
  const report: ValidationReport = {
    errors: entries(validation.errors),
    warnings: entries(validation.warnings),
  };
  if (typeof validation.ok === 'boolean') report.ok = validation.ok;
  if (typeof validation.note === 'string') report.note = validation.note;
  return report;
}
