import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { ErrorNotice } from '../../components/error-notice';
import { SchemaForm } from '../../components/schema-form';
import {
  describeSchema,
  fieldId,
  formatPath,
  parsePath,
  placeEntries,
  renderedPaths,
  reportOf,
  type JsonSchema,
  type JsonValue,
  type PlacedEntry,
  type ReportEntry,
} from '../../components/schema-form-model';
import { api, ApiFailure } from '../../lib/api';
import { useApi } from '../../lib/use-api';
import { ValidationSummary, WarningList } from './validation-summary';

/**
 * Settings > Configuration: every section of the config as a form generated
 * from GET config/schema, filled from GET config, saved whole with PUT
 * config. Refusals are shown at the field the server's report names.
 */

export interface SaveAnswer {
  saved?: { revision?: number; applied_at_epoch?: number; previous_snapshot_ts?: string | null };
  validation?: { warnings?: ReportEntry[] };
}

interface Outcome {
  message: string;
  warnings: ReportEntry[];
  restartReasons: string[];
}

/** restart_required reasons from the irrigation snapshot (the save answer carries none). */
export async function restartReasons(): Promise<string[]> {
  try {
    const snapshot = await api<{ restart_required?: boolean; restart_reasons?: string[] }>(
      'irrigation/snapshot',
    );
    return snapshot.restart_required ? (snapshot.restart_reasons ?? ['a restart is required']) : [];
  } catch {
    return [];
  }
}

export function savedMessage(answer: SaveAnswer): string {
  const revision = answer.saved?.revision;
  return `Saved${revision !== undefined ? ` (revision ${revision})` : ''}. The service applied the new configuration.`;
}

export function ConfigSection() {
  const schema = useApi<JsonSchema>('config/schema');
  const config = useApi<JsonValue>('config');
  const spec = useMemo(() => (schema.data ? describeSchema(schema.data) : null), [schema.data]);
  const [doc, setDoc] = useState<JsonValue | null>(null);
  const [clientErrors, setClientErrors] = useState<Record<string, string>>({});
  const [entries, setEntries] = useState<PlacedEntry[]>([]);
  const [failure, setFailure] = useState<ApiFailure | null>(null);
  const [saving, setSaving] = useState(false);
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [clientSummary, setClientSummary] = useState(false);
  const summary = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (config.data !== null) {
      setDoc(structuredClone(config.data));
      setClientErrors({});
    }
  }, [config.data]);

  const focusSummary = () => setTimeout(() => summary.current?.focus(), 0);

  const goTo = (field: string) => {
    const path = parsePath(field);
    const element = path ? document.getElementById(fieldId(path)) : null;
    element?.scrollIntoView({ block: 'center' });
    element?.focus();
  };

  const save = async (allowZoneKeyChange = false) => {
    if (!spec || doc === null) return;
    setOutcome(null);
    setFailure(null);
    if (Object.keys(clientErrors).length > 0) {
      setEntries([]);
      setClientSummary(true);
      focusSummary();
      return;
    }
    setClientSummary(false);
    setSaving(true);
    try {
      const answer = await api<SaveAnswer>(`config${allowZoneKeyChange ? '?allow_zone_key_change=1' : ''}`, {
        method: 'PUT',
        json: doc,
      });
      const warnings = answer.validation?.warnings ?? [];
      setEntries(placeEntries({ errors: [], warnings }, renderedPaths(spec, doc)));
      setOutcome({ message: savedMessage(answer), warnings, restartReasons: await restartReasons() });
      config.reload();
    } catch (err) {
      const report = err instanceof ApiFailure && err.code === 'config_invalid' ? reportOf(err.body) : null;
      if (report) {
        setEntries(placeEntries(report, renderedPaths(spec, doc)));
        focusSummary();
      } else {
        setEntries([]);
        setFailure(err instanceof ApiFailure ? err : new ApiFailure(String(err), 0, null, null, null));
      }
    } finally {
      setSaving(false);
    }
  };

  if (schema.error || config.error) {
    return (
      <>
        <ErrorNotice error={schema.error} title="The config schema could not be loaded" />
        <ErrorNotice error={config.error} title="The configuration could not be loaded" />
      </>
    );
  }
  if (!spec || doc === null) return <p class="loading">Loading the configuration…</p>;

  const dirty = JSON.stringify(doc) !== JSON.stringify(config.data);
  const refused = entries.some((e) => e.severity === 'error');
  const clientList = Object.entries(clientErrors).map(([field, message]) => ({
    code: 'input',
    path: field,
    message,
    severity: 'error' as const,
    field,
  }));

  return (
    <form
      class="settings-config"
      noValidate
      aria-label="Configuration"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <p class="muted settings-lead">
        Every setting of the service, as saved in its config file. Secrets stay hidden; leave them as they are
        to keep them. A save is checked in full by the service and applied at once; the file before it is kept
        as a snapshot.
      </p>
      {refused && (
        <ValidationSummary
          innerRef={summary}
          title="The configuration was not saved. Fix these and save again:"
          entries={entries}
          onGo={goTo}
        />
      )}
      {clientSummary && clientList.length > 0 && (
        <ValidationSummary
          innerRef={summary}
          title="Some inputs cannot be read; nothing was sent:"
          entries={clientList}
          onGo={goTo}
        />
      )}
      {failure && (
        <div class="settings-failure">
          <ErrorNotice error={failure} title="The configuration was not saved" />
          {failure.code === 'zone_key_renamed' && (
            <p class="row">
              <span>Renaming a zone key loses that zone’s history, overrides and HA entities.</span>
              <button type="button" class="danger" onClick={() => void save(true)} disabled={saving}>
                Save anyway and rename zone keys
              </button>
            </p>
          )}
        </div>
      )}

      <SchemaForm
        spec={spec}
        value={doc}
        onChange={(next, path) => {
          setDoc(next);
          setOutcome(null);
          // A server message about this field is stale once its value changed.
          const changed = formatPath(path);
          setEntries((current) =>
            current.some((e) => e.field === changed) ? current.filter((e) => e.field !== changed) : current,
          );
        }}
        entries={entries}
        clientErrors={clientErrors}
        onClientError={(key, message) =>
          setClientErrors((current) => {
            if ((current[key] ?? null) === message) return current;
            const next = { ...current };
            if (message === null) delete next[key];
            else next[key] = message;
            return next;
          })
        }
      />

      <div class="settings-savebar">
        <div class="settings-savebar-status" role="status" aria-live="polite">
          {outcome ? (
            <>
              <strong class="settings-ok">{outcome.message}</strong>
              {outcome.restartReasons.length > 0 && (
                <span> A restart is required: {outcome.restartReasons.join('; ')}.</span>
              )}
            </>
          ) : saving ? (
            'Saving…'
          ) : dirty ? (
            <span class="settings-dirty">Unsaved changes</span>
          ) : (
            <span class="muted">No changes</span>
          )}
        </div>
        <div class="row">
          {dirty && (
            <button
              type="button"
              disabled={saving}
              onClick={() => {
                setDoc(structuredClone(config.data));
                setEntries([]);
                setClientErrors({});
                setClientSummary(false);
                setFailure(null);
              }}
            >
              Discard changes
            </button>
          )}
          <button type="submit" class="primary" disabled={saving}>
            {saving ? 'Saving…' : 'Save configuration'}
          </button>
        </div>
      </div>
      {outcome && <WarningList entries={outcome.warnings} />}
    </form>
  );
}
