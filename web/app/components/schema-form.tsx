import { createContext, type ComponentChildren } from 'preact';
import { useContext, useRef, useState } from 'preact/hooks';
import {
  fieldId,
  fieldLabel,
  formatInput,
  formatPath,
  getAt,
  initialValue,
  isSecretKey,
  parseInput,
  rangeText,
  REDACTED,
  removeAt,
  optionLabel,
  propertiesFor,
  sentence,
  setAt,
  singular,
  type FieldSpec,
  type JsonValue,
  type Path,
  type PlacedEntry,
  type Property,
} from './schema-form-model';
import './schema-form.css';

/**
 * A form generated from a JSON Schema (schema-form-model.ts describes the
 * schema): objects as fieldsets, records and arrays of objects as a fieldset
 * per entry, primitives as inputs, and a JSON textarea for anything else so
 * no part of the document is lost. The document is edited in place at each
 * field's path: keys the user does not touch are sent back exactly as they
 * came (including `***redacted***` secrets, which the server keeps).
 */

interface FormState {
  root: JsonValue;
  update(path: Path, value: JsonValue | undefined): void;
  remove(path: Path): void;
  /** Server validation entries by formatPath() key. */
  entries: Map<string, PlacedEntry[]>;
  /** Text that does not parse (JSON, numbers), by formatPath() key. */
  clientErrors: Record<string, string>;
  reportClientError(key: string, message: string | null): void;
  idPrefix: string;
}

const FormContext = createContext<FormState | null>(null);
const useForm = (): FormState => useContext(FormContext) as FormState;

export interface SchemaFormProps {
  spec: FieldSpec;
  value: JsonValue;
  /** The new document and the path that changed. */
  onChange(next: JsonValue, path: Path): void;
  /** Placed validation entries (placeEntries); shown next to their field. */
  entries: PlacedEntry[];
  clientErrors: Record<string, string>;
  onClientError(key: string, message: string | null): void;
  idPrefix?: string;
}

export function SchemaForm(props: SchemaFormProps) {
  const { spec, value, onChange, entries, clientErrors, onClientError, idPrefix = 'cfg' } = props;
  const latest = useRef(value);
  latest.current = value;
  const byField = new Map<string, PlacedEntry[]>();
  for (const entry of entries) {
    if (entry.field === null) continue;
    byField.set(entry.field, [...(byField.get(entry.field) ?? []), entry]);
  }
  const state: FormState = {
    root: value,
    update: (path, next) => {
      latest.current = setAt(latest.current, path, next) ?? {};
      onChange(latest.current, path);
    },
    remove: (path) => {
      latest.current = removeAt(latest.current, path) ?? {};
      onChange(latest.current, path);
    },
    entries: byField,
    clientErrors,
    reportClientError: onClientError,
    idPrefix,
  };

  if (spec.kind !== 'object') {
    return (
      <FormContext.Provider value={state}>
        <FieldNode spec={spec} path={[]} label="Document" required />
      </FormContext.Provider>
    );
  }
  const editable = spec.properties.filter((p) => !p.spec.readOnly);
  const leaves = editable.filter((p) => !isGroup(p.spec));
  const groups = editable.filter((p) => isGroup(p.spec));
  return (
    <FormContext.Provider value={state}>
      <div class="sf-root">
        {groups.length > 2 && (
          <div class="sf-jump" role="group" aria-label="Jump to a section">
            <span class="muted">Jump to</span>
            {groups.map((p) => (
              <button
                key={p.key}
                type="button"
                onClick={() => {
                  const target = document.getElementById(fieldId([p.key], idPrefix));
                  target?.scrollIntoView({ block: 'start' });
                  target?.focus({ preventScroll: true });
                }}
              >
                {fieldLabel(p.key, p.spec)}
              </button>
            ))}
          </div>
        )}
        {leaves.length > 0 && (
          <section class="card sf-section" aria-labelledby={`${idPrefix}-general`}>
            <h2 id={`${idPrefix}-general`}>General</h2>
            <div class="sf-grid">
              {leaves.map((p) => (
                <FieldNode key={p.key} spec={p.spec} path={[p.key]} required={p.required} />
              ))}
            </div>
          </section>
        )}
        {groups.map((p) => (
          <FieldNode key={p.key} spec={p.spec} path={[p.key]} required={p.required} top />
        ))}
        <ReadOnlyFacts properties={spec.properties} path={[]} value={value} />
      </div>
    </FormContext.Provider>
  );
}

/** Values the service sets (`readOnly`, e.g. `schema_version`): stated after the form, never edited. */
function ReadOnlyFacts({
  properties,
  path,
  value,
}: {
  properties: Property[];
  path: Path;
  value: JsonValue;
}) {
  const facts = properties.filter((p) => p.spec.readOnly && getAt(value, [...path, p.key]) !== undefined);
  if (facts.length === 0) return null;
  return (
    <dl class="sf-readonly">
      {facts.map((p) => (
        <div key={p.key}>
          <dt>{fieldLabel(p.key, p.spec)}</dt>
          <dd>
            {String(getAt(value, [...path, p.key]))}
            {p.spec.description && <span class="muted"> · {sentence(p.spec.description)}</span>}
          </dd>
        </div>
      ))}
    </dl>
  );
}

/**
 * The fields of an object for its current value (a kind's own settings when it
 * has variants), read-only ones left out; `kind` first so its settings follow it.
 */
function editableProperties(spec: FieldSpec, value: JsonValue | undefined): Property[] {
  const properties = propertiesFor(spec, value).filter((p) => !p.spec.readOnly);
  const key = spec.kind === 'object' ? spec.variants?.key : undefined;
  if (!key) return properties;
  return [...properties.filter((p) => p.key === key), ...properties.filter((p) => p.key !== key)];
}

function isGroup(spec: FieldSpec): boolean {
  return spec.kind === 'object' || spec.kind === 'record' || spec.kind === 'array';
}

function keyOf(path: Path): string | number | undefined {
  return path[path.length - 1];
}

function labelFor(path: Path, spec: FieldSpec, label?: string): string {
  if (label) return label;
  const key = keyOf(path);
  return typeof key === 'string' ? fieldLabel(key, spec) : `Entry ${(key ?? 0) + 1}`;
}

/** Description as help text; the schema says "null" where the form shows an empty input. */
function helpText(spec: FieldSpec): string | null {
  const parts: string[] = [];
  if (spec.description) parts.push(sentence(spec.description));
  const range = rangeText(spec);
  if (range) parts.push(`${range.charAt(0).toUpperCase()}${range.slice(1)}.`);
  if (spec.default !== undefined && spec.default !== null && typeof spec.default !== 'object')
    parts.push(`Default: ${String(spec.default)}.`);
  return parts.length > 0 ? parts.join(' ') : null;
}

interface NodeProps {
  spec: FieldSpec;
  path: Path;
  required: boolean;
  label?: string;
  /** A top-level section: a card with a heading instead of a fieldset. */
  top?: boolean;
  /** Called with the new value after this field changed it (a kind choosing its settings). */
  after?: (value: JsonValue | undefined) => void;
}

function FieldNode(props: NodeProps) {
  switch (props.spec.kind) {
    case 'object':
      return <ObjectNode {...props} />;
    case 'record':
      return <RecordNode {...props} />;
    case 'array':
      return <ArrayNode {...props} />;
    default:
      return <LeafField {...props} />;
  }
}

function Messages({ field, id }: { field: string; id?: string }) {
  const form = useForm();
  const list = form.entries.get(field) ?? [];
  const client = form.clientErrors[field];
  if (list.length === 0 && !client) return null;
  return (
    <div class="sf-messages" id={id}>
      {client && <p class="field-error">{client}</p>}
      {list.map((entry, i) => (
        <p key={i} class={entry.severity === 'error' ? 'field-error' : 'field-warning'}>
          {entry.severity === 'warning' && <span class="sf-tag">Warning: </span>}
          {entry.message}
        </p>
      ))}
    </div>
  );
}

function hasError(form: FormState, key: string): boolean {
  return Boolean(form.clientErrors[key]) || (form.entries.get(key) ?? []).some((e) => e.severity === 'error');
}

/** A new kind starts from its own settings' defaults: the old kind's settings mean nothing to it. */
function kindSwitch(form: FormState, spec: FieldSpec, path: Path, key: string) {
  if (spec.kind !== 'object' || spec.variants?.key !== key) return undefined;
  const cases = spec.variants.cases;
  return (value: JsonValue | undefined) => {
    for (const property of cases[String(value)] ?? []) {
      form.update([...path, property.key], initialValue(property.spec));
    }
  };
}

/** A fieldset (or a top-level card) with its heading, actions and messages. */
function Group(props: {
  path: Path;
  label: string;
  top?: boolean;
  help?: string | null;
  actions?: ComponentChildren;
  children: ComponentChildren;
}) {
  const form = useForm();
  const key = formatPath(props.path);
  const id = fieldId(props.path, form.idPrefix);
  const invalid = hasError(form, key);
  const header = (
    <>
      {props.help && <p class="help sf-help">{props.help}</p>}
      <Messages field={key} id={`${id}-msg`} />
    </>
  );
  if (props.top) {
    return (
      <section
        class={`card sf-section${invalid ? ' sf-invalid' : ''}`}
        id={id}
        tabIndex={-1}
        aria-labelledby={`${id}-title`}
      >
        <div class="spread sf-head">
          <h2 id={`${id}-title`}>{props.label}</h2>
          {props.actions && <div class="row">{props.actions}</div>}
        </div>
        {header}
        {props.children}
      </section>
    );
  }
  return (
    <fieldset class={`sf-fieldset${invalid ? ' sf-invalid' : ''}`} id={id} tabIndex={-1}>
      <legend>{props.label}</legend>
      {header}
      {props.children}
      {props.actions && <div class="row sf-actions">{props.actions}</div>}
    </fieldset>
  );
}

function ObjectNode({ spec, path, required, label, top }: NodeProps) {
  const form = useForm();
  if (spec.kind !== 'object') return null;
  const value = getAt(form.root, path);
  const shown = value ?? spec.default ?? undefined;
  const name = labelFor(path, spec, label);
  const optional = !required && spec.default === undefined;
  const present = shown !== undefined && shown !== null;
  const actions =
    optional && present ? (
      <button type="button" class="danger" onClick={() => form.update(path, undefined)}>
        Remove {name}
      </button>
    ) : null;
  if (!present) {
    return (
      <Group path={path} label={name} top={top} help={spec.description ?? null}>
        <div class="row">
          <span class="muted">Not set.</span>
          <button type="button" onClick={() => form.update(path, initialValue(spec))}>
            Add {name}
          </button>
        </div>
      </Group>
    );
  }
  const properties = editableProperties(spec, shown);
  const leaves = properties.filter((p) => !isGroup(p.spec));
  const groups = properties.filter((p) => isGroup(p.spec));
  return (
    <Group path={path} label={name} top={top} help={spec.description ?? null} actions={actions}>
      {leaves.length > 0 && (
        <div class="sf-grid">
          {leaves.map((p) => (
            <FieldNode
              key={p.key}
              spec={p.spec}
              path={[...path, p.key]}
              required={p.required}
              after={kindSwitch(form, spec, path, p.key)}
            />
          ))}
        </div>
      )}
      {groups.map((p) => (
        <FieldNode key={p.key} spec={p.spec} path={[...path, p.key]} required={p.required} />
      ))}
    </Group>
  );
}

function entryTitle(value: JsonValue | undefined): string | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const name = value.display_name ?? value.name ?? value.id;
  const kind = value.kind;
  if (typeof name !== 'string' || name === '') return typeof kind === 'string' ? kind : null;
  return typeof kind === 'string' && kind !== '' ? `${name} (${kind})` : name;
}

function RecordNode({ spec, path, label, top }: NodeProps) {
  const form = useForm();
  const [newKey, setNewKey] = useState('');
  const [keyError, setKeyError] = useState<string | null>(null);
  if (spec.kind !== 'record') return null;
  const value = getAt(form.root, path);
  const shown = value ?? spec.default;
  const entries = shown && typeof shown === 'object' && !Array.isArray(shown) ? Object.keys(shown) : [];
  const name = labelFor(path, spec, label);
  const one = singular(name);
  const inputId = `${fieldId(path, form.idPrefix)}-new`;
  const add = () => {
    const key = newKey.trim();
    if (key === '') return setKeyError('Enter a key first.');
    if (entries.includes(key)) return setKeyError(`“${key}” already exists.`);
    if (spec.keyPattern && !new RegExp(spec.keyPattern).test(key))
      return setKeyError(`“${key}” is not a valid key (lower-case letters, digits and “_”).`);
    setKeyError(null);
    setNewKey('');
    form.update([...path, key], initialValue(spec.value));
  };
  const objects = spec.value.kind === 'object' || spec.value.kind === 'record' || spec.value.kind === 'array';
  return (
    <Group path={path} label={name} top={top} help={spec.description ?? null}>
      {entries.length === 0 && <p class="muted">None.</p>}
      <div class={objects ? 'sf-entries' : 'sf-grid'}>
        {entries.map((key) => {
          const entryPath = [...path, key];
          const entryValue = getAt(shown, [key]);
          const title = entryTitle(entryValue);
          const remove = (
            <button
              type="button"
              class="danger"
              aria-label={`Remove ${one.toLowerCase()} ${key}`}
              onClick={() => form.remove(entryPath)}
            >
              Remove {one.toLowerCase()}
            </button>
          );
          if (objects) {
            return (
              <EntryGroup
                key={key}
                spec={spec.value}
                path={entryPath}
                label={title && title !== key ? `${title} · ${key}` : key}
                actions={remove}
              />
            );
          }
          return (
            <div class="sf-record-leaf" key={key}>
              <FieldNode spec={spec.value} path={entryPath} required label={key} />
              {remove}
            </div>
          );
        })}
      </div>
      <div class="sf-add">
        <div class="field">
          <label for={inputId}>New {one.toLowerCase()} key</label>
          <input
            id={inputId}
            value={newKey}
            autoComplete="off"
            spellcheck={false}
            aria-invalid={keyError ? 'true' : undefined}
            aria-describedby={keyError ? `${inputId}-error` : undefined}
            onInput={(e) => setNewKey((e.currentTarget as HTMLInputElement).value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter') {
                e.preventDefault();
                add();
              }
            }}
          />
          {keyError && (
            <p class="field-error" id={`${inputId}-error`}>
              {keyError}
            </p>
          )}
        </div>
        <button type="button" onClick={add}>
          Add {one.toLowerCase()}
        </button>
      </div>
    </Group>
  );
}

/** One entry of a record or array whose values are objects: its own fieldset. */
function EntryGroup(props: { spec: FieldSpec; path: Path; label: string; actions: ComponentChildren }) {
  const { spec, path, label, actions } = props;
  if (spec.kind !== 'object') {
    return (
      <div class="sf-record-leaf">
        <FieldNode spec={spec} path={path} required label={label} />
        {actions}
      </div>
    );
  }
  return <ObjectEntry spec={spec} path={path} label={label} actions={actions} />;
}

function ObjectEntry(props: { spec: FieldSpec; path: Path; label: string; actions: ComponentChildren }) {
  const { spec, path, label, actions } = props;
  const form = useForm();
  if (spec.kind !== 'object') return null;
  const properties = editableProperties(spec, getAt(form.root, path));
  const leaves = properties.filter((p) => !isGroup(p.spec));
  const groups = properties.filter((p) => isGroup(p.spec));
  return (
    <Group path={path} label={label} actions={actions}>
      <div class="sf-grid">
        {leaves.map((p) => (
          <FieldNode
            key={p.key}
            spec={p.spec}
            path={[...path, p.key]}
            required={p.required}
            after={kindSwitch(form, spec, path, p.key)}
          />
        ))}
      </div>
      {groups.map((p) => (
        <FieldNode key={p.key} spec={p.spec} path={[...path, p.key]} required={p.required} />
      ))}
    </Group>
  );
}

function ArrayNode({ spec, path, label, top }: NodeProps) {
  const form = useForm();
  if (spec.kind !== 'array') return null;
  const value = getAt(form.root, path);
  const shown = Array.isArray(value) ? value : Array.isArray(spec.default) ? spec.default : [];
  const name = labelFor(path, spec, label);
  const one = singular(name);
  return (
    <Group path={path} label={name} top={top} help={spec.description ?? null}>
      {shown.length === 0 && <p class="muted">None.</p>}
      <div class="sf-entries">
        {shown.map((item, i) => {
          const title = entryTitle(item);
          return (
            <EntryGroup
              key={i}
              spec={spec.item}
              path={[...path, i]}
              label={`${one} ${i + 1}${title ? `: ${title}` : ''}`}
              actions={
                <button
                  type="button"
                  class="danger"
                  aria-label={`Remove ${one.toLowerCase()} ${i + 1}${title ? ` (${title})` : ''}`}
                  onClick={() => form.remove([...path, i])}
                >
                  Remove {one.toLowerCase()}
                </button>
              }
            />
          );
        })}
      </div>
      <div class="sf-add">
        <button type="button" onClick={() => form.update([...path, shown.length], initialValue(spec.item))}>
          Add {one.toLowerCase()}
        </button>
      </div>
    </Group>
  );
}

function isEmptyObject(value: JsonValue | undefined): boolean {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0
  );
}

function sameJson(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** One input (text, number, checkbox, select, list or JSON textarea) with label, help and messages. */
function LeafField({ spec, path, required, label, after }: NodeProps) {
  const form = useForm();
  const value = getAt(form.root, path);
  const shown = value ?? spec.default;
  const key = formatPath(path);
  const id = fieldId(path, form.idPrefix);
  const name = labelFor(path, spec, label);
  const [text, setText] = useState(() => formatInput(spec, shown));
  const [rawJson, setRawJson] = useState(false);
  // The value this field last emitted, and the value prop of the last render.
  const emitted = useRef<JsonValue | undefined>(value);
  const seen = useRef<JsonValue | undefined>(value);

  // Follow outside changes (reload, discard, rollback) but not the echo of this field's own edits.
  // Done while rendering, not in an effect: an effect runs late and would put back a value
  // the user has already typed past.
  if (!sameJson(value, seen.current)) {
    seen.current = value;
    if (!sameJson(value, emitted.current)) {
      emitted.current = value;
      const next = formatInput(spec, value ?? spec.default);
      if (next !== text) setText(next);
      if (form.clientErrors[key]) queueMicrotask(() => form.reportClientError(key, null));
    }
  }

  const commit = (nextText: string, badInput = false) => {
    setText(nextText);
    if (badInput) {
      form.reportClientError(key, 'That is not a number.');
      return;
    }
    const parsed = parseInput(spec, nextText, required);
    if (!parsed.ok) {
      form.reportClientError(key, parsed.message);
      return;
    }
    form.reportClientError(key, null);
    emitted.current = parsed.value;
    form.update(path, parsed.value);
    after?.(parsed.value);
  };

  const secret = isSecretKey(keyOf(path)) && spec.kind === 'string';
  const help = [
    helpText(spec),
    spec.kind === 'list' ? 'One per line.' : null,
    spec.kind === 'json' ? 'Edited as JSON: this form has no dedicated inputs for it.' : null,
    secret && value === REDACTED
      ? `A stored secret, not shown. Leave it as it is to keep it, or replace it with a new value.`
      : null,
  ]
    .filter(Boolean)
    .join(' ');
  const helpId = `${id}-help`;
  const msgId = `${id}-msg`;
  const invalid = hasError(form, key);
  const messages = form.entries.get(key) ?? [];
  const describedBy =
    [help ? helpId : null, messages.length > 0 || form.clientErrors[key] ? msgId : null]
      .filter(Boolean)
      .join(' ') || undefined;
  const common = {
    id,
    'aria-invalid': invalid ? ('true' as const) : undefined,
    'aria-describedby': describedBy,
  };
  const wide = spec.kind === 'json';
  // A key the schema accepts but describes not at all (deprecated) is shown only when the document has it.
  if (spec.kind === 'json' && spec.any && value === undefined) return null;
  // An open block that is empty (a kind with no settings of its own): say so instead of showing `{}`.
  if (spec.kind === 'json' && !rawJson && isEmptyObject(shown)) {
    return (
      <div class="field sf-wide">
        <span class="sf-label">{name}</span>
        <p class="muted sf-none">
          None needed.{' '}
          <button type="button" class="settings-linkish" onClick={() => setRawJson(true)}>
            Edit as JSON
          </button>
        </p>
      </div>
    );
  }

  let control;
  switch (spec.kind) {
    case 'boolean': {
      const checked = shown === true;
      return (
        <div class="field sf-check">
          <input
            type="checkbox"
            {...common}
            checked={checked}
            onChange={(e) => commit(String((e.currentTarget as HTMLInputElement).checked))}
          />
          <div>
            <label for={id}>{name}</label>
            {help && (
              <p class="help" id={helpId}>
                {help}
              </p>
            )}
            <Messages field={key} id={msgId} />
          </div>
        </div>
      );
    }
    case 'enum': {
      const blankAllowed = spec.nullable || (!required && spec.default === undefined);
      const current = shown === undefined || shown === null ? '' : JSON.stringify(shown);
      const known = spec.options.some((o) => JSON.stringify(o) === current);
      control = (
        <select
          {...common}
          value={current}
          onChange={(e) => commit((e.currentTarget as HTMLSelectElement).value)}
        >
          {(blankAllowed || current === '') && <option value="">— not set —</option>}
          {!known && current !== '' && <option value={current}>{current} (not an option)</option>}
          {spec.options.map((option) => (
            <option key={String(option)} value={JSON.stringify(option)}>
              {optionLabel(option, spec.labels)}
            </option>
          ))}
        </select>
      );
      break;
    }
    case 'number':
    case 'integer':
      control = (
        <input
          type="number"
          {...common}
          value={text}
          step={spec.kind === 'integer' ? 1 : 'any'}
          min={spec.min ?? spec.exclusiveMin}
          max={spec.max ?? spec.exclusiveMax}
          inputMode={spec.kind === 'integer' ? 'numeric' : 'decimal'}
          onInput={(e) => {
            const input = e.currentTarget as HTMLInputElement;
            commit(input.value, input.validity.badInput);
          }}
        />
      );
      break;
    case 'list':
    case 'json':
      control = (
        <textarea
          {...common}
          class="sf-json"
          rows={Math.min(12, Math.max(2, text.split('\n').length + (spec.kind === 'list' ? 1 : 0)))}
          spellcheck={false}
          value={text}
          onInput={(e) => commit((e.currentTarget as HTMLTextAreaElement).value)}
        />
      );
      break;
    default: {
      const onInput = (e: Event) => commit((e.currentTarget as HTMLInputElement).value);
      const needed = required && spec.kind === 'string' && (spec.minLength ?? 0) > 0;
      control = secret ? (
        <input
          type="password"
          autoComplete="new-password"
          {...common}
          value={text}
          required={needed}
          onInput={onInput}
        />
      ) : (
        <input
          type="text"
          autoComplete="off"
          spellcheck={false}
          {...common}
          value={text}
          required={needed}
          onInput={onInput}
        />
      );
    }
  }
  return (
    <div class={`field${wide ? ' sf-wide' : ''}`}>
      <label for={id}>
        {name}
        {required && !label && spec.kind !== 'json' && (
          <span class="sf-required" aria-hidden="true">
            {' '}
            *
          </span>
        )}
      </label>
      {control}
      {help && (
        <p class="help" id={helpId}>
          {help}
        </p>
      )}
      <Messages field={key} id={msgId} />
    </div>
  );
}
