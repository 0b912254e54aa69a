import { useEffect, useRef, useState } from 'preact/hooks';
import { ErrorNotice } from '../../components/error-notice';
import { reportOf, type ReportEntry } from '../../components/schema-form-model';
import { api, ApiFailure, apiText } from '../../lib/api';
import { restartReasons, savedMessage, type SaveAnswer } from './config-section';
import { ValidationSummary, WarningList } from './validation-summary';

/**
 * Settings > Raw TOML: the config file as written (comments kept, secrets
 * masked), saved with PUT config/raw under the same rules as the form.
 */

export function RawSection() {
  const [text, setText] = useState<string | null>(null);
  const [loaded, setLoaded] = useState<string | null>(null);
  const [loadError, setLoadError] = useState<ApiFailure | null>(null);
  const [absent, setAbsent] = useState(false);
  const [saving, setSaving] = useState(false);
  const [failure, setFailure] = useState<ApiFailure | null>(null);
  const [report, setReport] = useState<{ errors: ReportEntry[]; warnings: ReportEntry[] } | null>(null);
  const [status, setStatus] = useState<{
    message: string;
    warnings: ReportEntry[];
    restart: string[];
  } | null>(null);
  const summary = useRef<HTMLDivElement>(null);

  const load = () =>
    apiText('config/raw')
      .then((body) => {
        setText(body);
        setLoaded(body);
        setAbsent(false);
        setLoadError(null);
      })
      .catch((err: unknown) => {
        if (err instanceof ApiFailure && err.code === 'config_absent') {
          setAbsent(true);
          setText((t) => t ?? '');
          setLoaded('');
        } else
          setLoadError(err instanceof ApiFailure ? err : new ApiFailure(String(err), 0, null, null, null));
      });

  useEffect(() => {
    void load();
  }, []);

  const save = async (allowZoneKeyChange = false) => {
    if (text === null) return;
    setSaving(true);
    setFailure(null);
    setReport(null);
    setStatus(null);
    try {
      const answer = await api<SaveAnswer>(
        `config/raw${allowZoneKeyChange ? '?allow_zone_key_change=1' : ''}`,
        {
          method: 'PUT',
          body: text,
          contentType: 'application/toml; charset=utf-8',
        },
      );
      setStatus({
        message: savedMessage(answer),
        warnings: answer.validation?.warnings ?? [],
        restart: await restartReasons(),
      });
      await load();
    } catch (err) {
      const found = err instanceof ApiFailure && err.code === 'config_invalid' ? reportOf(err.body) : null;
      if (found) {
        setReport(found);
        setTimeout(() => summary.current?.focus(), 0);
      } else setFailure(err instanceof ApiFailure ? err : new ApiFailure(String(err), 0, null, null, null));
    } finally {
      setSaving(false);
    }
  };

  if (loadError) return <ErrorNotice error={loadError} title="The config file could not be read" />;
  if (text === null) return <p class="loading">Loading the config file…</p>;
  const dirty = text !== loaded;

  return (
    <form
      class="card settings-raw"
      noValidate
      aria-label="Raw TOML"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <p class="muted settings-lead">
        The config file as written, comments kept. Secret values show as <code>***redacted***</code>: leave
        them so to keep the stored secret. A save is checked like the form’s and kept as a snapshot first.
      </p>
      {absent && (
        <p class="notice notice-warn">No config file exists yet: saving here writes the first one.</p>
      )}
      {report && (
        <ValidationSummary
          innerRef={summary}
          title="The TOML was not saved:"
          entries={[
            ...report.errors.map((e) => ({ ...e, severity: 'error' as const })),
            ...report.warnings.map((e) => ({ ...e, severity: 'warning' as const })),
          ]}
        />
      )}
      {failure && (
        <>
          <ErrorNotice error={failure} title="The TOML was not saved" />
          {failure.code === 'zone_key_renamed' && (
            <p class="row">
              <span>Renaming a zone key loses that zone’s history, overrides and HA entities.</span>
              <button type="button" class="danger" onClick={() => void save(true)} disabled={saving}>
                Save anyway and rename zone keys
              </button>
            </p>
          )}
        </>
      )}
      <div class="field">
        <label for="raw-toml">Configuration TOML</label>
        <textarea
          id="raw-toml"
          class="code"
          spellcheck={false}
          autoComplete="off"
          value={text}
          aria-invalid={report && report.errors.length > 0 ? 'true' : undefined}
          onInput={(e) => {
            setText((e.currentTarget as HTMLTextAreaElement).value);
            setStatus(null);
          }}
        />
      </div>
      <div class="spread">
        <div role="status" aria-live="polite" class="settings-savebar-status">
          {status ? (
            <>
              <strong class="settings-ok">{status.message}</strong>
              {status.restart.length > 0 && <span> A restart is required: {status.restart.join('; ')}.</span>}
            </>
          ) : saving ? (
            'Saving…'
          ) : dirty ? (
            <span class="settings-dirty">Unsaved changes</span>
          ) : null}
        </div>
        <div class="row">
          <button type="button" disabled={!dirty || saving} onClick={() => setText(loaded)}>
            Discard changes
          </button>
          <button type="submit" class="primary" disabled={saving}>
            {saving ? 'Saving…' : 'Save TOML'}
          </button>
        </div>
      </div>
      {status && <WarningList entries={status.warnings} />}
    </form>
  );
}
