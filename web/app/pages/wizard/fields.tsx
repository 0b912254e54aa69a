import type { ComponentChildren } from 'preact';
import type { KindField } from './catalog';

/** Form controls of the wizard: a label on every input, help and errors tied to it by aria-describedby. */

export function domId(key: string): string {
  return `wz-${key.replace(/[^A-Za-z0-9_-]/g, '-')}`;
}

interface FieldProps {
  id: string;
  label: string;
  value: string;
  onValue: (value: string) => void;
  error?: string | undefined;
  help?: ComponentChildren;
  type?: 'text' | 'password' | 'number' | 'url' | 'date';
  placeholder?: string | undefined;
  autoComplete?: string;
  inputMode?: 'decimal' | 'numeric' | 'text' | 'url';
  required?: boolean;
  onBlur?: () => void;
  class?: string;
  list?: string;
}

export function TextField(props: FieldProps) {
  const id = domId(props.id);
  const describedBy = [props.help ? `${id}-help` : '', props.error ? `${id}-error` : '']
    .filter(Boolean)
    .join(' ');
  return (
    <div class={`field ${props.class ?? ''}`}>
      <label for={id}>{props.label}</label>
      <input
        {...({
          type: props.type === 'number' ? 'text' : (props.type ?? 'text'),
          list: props.list,
        } as object)}
        id={id}
        value={props.value}
        placeholder={props.placeholder}
        autoComplete={props.autoComplete ?? 'off'}
        inputMode={props.type === 'number' ? 'numeric' : props.inputMode}
        aria-required={props.required ? 'true' : undefined}
        aria-invalid={props.error ? 'true' : undefined}
        aria-describedby={describedBy || undefined}
        onInput={(e) => props.onValue((e.currentTarget as HTMLInputElement).value)}
        onBlur={props.onBlur}
      />
      {props.help && (
        <div class="help" id={`${id}-help`}>
          {props.help}
        </div>
      )}
      {props.error && (
        <div class="field-error" id={`${id}-error`}>
          {props.error}
        </div>
      )}
    </div>
  );
}

export interface Option {
  value: string;
  label: string;
}

export function SelectField(props: {
  id: string;
  label: string;
  value: string;
  options: Option[];
  onValue: (value: string) => void;
  help?: ComponentChildren;
  error?: string | undefined;
  /** Label of an empty first option (unset); none when absent. */
  emptyLabel?: string;
  class?: string;
}) {
  const id = domId(props.id);
  const describedBy = [props.help ? `${id}-help` : '', props.error ? `${id}-error` : '']
    .filter(Boolean)
    .join(' ');
  return (
    <div class={`field ${props.class ?? ''}`}>
      <label for={id}>{props.label}</label>
      <select
        id={id}
        value={props.value}
        aria-invalid={props.error ? 'true' : undefined}
        aria-describedby={describedBy || undefined}
        onChange={(e) => props.onValue((e.currentTarget as HTMLSelectElement).value)}
      >
        {props.emptyLabel !== undefined && <option value="">{props.emptyLabel}</option>}
        {props.options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
      {props.help && (
        <div class="help" id={`${id}-help`}>
          {props.help}
        </div>
      )}
      {props.error && (
        <div class="field-error" id={`${id}-error`}>
          {props.error}
        </div>
      )}
    </div>
  );
}

export function CheckboxField(props: {
  id: string;
  label: ComponentChildren;
  checked: boolean;
  onChecked: (checked: boolean) => void;
  help?: ComponentChildren;
}) {
  const id = domId(props.id);
  return (
    <div class="field wz-check">
      <input
        id={id}
        type="checkbox"
        checked={props.checked}
        aria-describedby={props.help ? `${id}-help` : undefined}
        onChange={(e) => props.onChecked((e.currentTarget as HTMLInputElement).checked)}
      />
      <div>
        <label for={id}>{props.label}</label>
        {props.help && (
          <div class="help" id={`${id}-help`}>
            {props.help}
          </div>
        )}
      </div>
    </div>
  );
}

/** The config fields of a source or controller kind. */
export function KindFields(props: {
  prefix: string;
  fields: readonly KindField[];
  values: Record<string, string>;
  errors: Record<string, string>;
  /** Which secrets have a stored value (an empty input keeps it). */
  stored: (field: KindField) => boolean;
  onChange: (key: string, value: string) => void;
}) {
  return (
    <div class="wz-kind-fields">
      {props.fields.map((field) => {
        const key = `${props.prefix}.${field.key}`;
        const value = props.values[field.key] ?? '';
        if (field.type === 'checkbox')
          return (
            <CheckboxField
              key={key}
              id={key}
              label={field.label}
              checked={value === 'true'}
              onChecked={(c) => props.onChange(field.key, c ? 'true' : 'false')}
              help={field.help}
            />
          );
        if (field.type === 'select')
          return (
            <SelectField
              key={key}
              id={key}
              label={field.label}
              value={value}
              options={(field.options ?? []).map((o) => ({ value: o, label: o }))}
              onValue={(v) => props.onChange(field.key, v)}
              help={field.help}
              error={props.errors[key]}
            />
          );
        const stored = field.secret && props.stored(field);
        return (
          <TextField
            key={key}
            id={key}
            label={field.label}
            type={field.type}
            value={value}
            required={field.required && !stored}
            placeholder={stored ? 'stored (leave empty to keep it)' : field.placeholder}
            autoComplete={field.type === 'password' ? 'new-password' : 'off'}
            help={field.help}
            error={props.errors[key]}
            onValue={(v) => props.onChange(field.key, v)}
          />
        );
      })}
    </div>
  );
}
