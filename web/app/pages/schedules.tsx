import { useEffect, useMemo, useState } from 'preact/hooks';
import { ErrorNotice } from '../components/error-notice';
import { SchemaForm } from '../components/schema-form';
import {
  describeSchema,
  formatPath,
  placeEntries,
  renderedPaths,
  reportOf,
  type JsonSchema,
  type JsonValue,
  type PlacedEntry,
} from '../components/schema-form-model';
import { api, ApiFailure } from '../lib/api';
import { useLiveSnapshot } from '../lib/stream';
import { useApi } from '../lib/use-api';
import { formatTime } from '../lib/time';
import { useYardZone } from '../lib/yard-time';
import { scheduleRows, schedulesSpec, todayRuns, type ScheduleRow } from './schedules/schedules-model';
import type { IrrigationSnapshot } from './zones/irrigation-types';

/**
 * /schedules: the fixed `[[schedules]]` beside the smart plan. A list with an
 * enable switch each (POST irrigation/action set_schedule_enabled, a config
 * save) and today's runs; below it the schedules as a form built from the
 * config schema (add, edit, remove), saved with the rest of the config
 * (PUT config), refusals shown at their field. See docs/configuration.md.
 */

export default function SchedulesPage() {
  const schema = useApi<JsonSchema>('config/schema');
  const config = useApi<JsonValue>('config');
  const irrigation = useLiveSnapshot<IrrigationSnapshot>('irrigation');
  const spec = useMemo(
    () => (schema.data ? schedulesSpec(describeSchema(schema.data)) : null),
    [schema.data],
  );
  const [doc, setDoc] = useState<JsonValue | null>(null);
  const [entries, setEntries] = useState<PlacedEntry[]>([]);
  const [clientErrors, setClientErrors] = useState<Record<string, string>>({});
  const [failure, setFailure] = useState<ApiFailure | null>(null);
  const [status, setStatus] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (config.data !== null) setDoc(structuredClone(config.data));
  }, [config.data]);

  const rows = scheduleRows(config.data);

  const toggle = async (row: ScheduleRow, enabled: boolean) => {
    setFailure(null);
    setBusy(true);
    try {
      await api('irrigation/action', {
        method: 'POST',
        json: { kind: 'set_schedule_enabled', schedule: row.slug, enabled },
      });
      setStatus(`${row.name} is ${enabled ? 'on' : 'off'}.`);
      config.reload();
    } catch (err) {
      setFailure(err instanceof ApiFailure ? err : new ApiFailure(String(err), 0, null, null, null));
    } finally {
      setBusy(false);
    }
  };

  const save = async () => {
    if (!spec || doc === null) return;
    setFailure(null);
    setStatus(null);
    if (Object.keys(clientErrors).length > 0) {
      setStatus('Some inputs cannot be read; nothing was sent.');
      return;
    }
    setBusy(true);
    try {
      await api('config', { method: 'PUT', json: doc });
      setEntries([]);
      setStatus('Saved. The service applied the schedules.');
      config.reload();
    } catch (err) {
      const report = err instanceof ApiFailure && err.code === 'config_invalid' ? reportOf(err.body) : null;
      if (report) {
        setEntries(placeEntries(report, renderedPaths(spec, doc)));
        setStatus('The schedules were not saved: see the fields marked below.');
      } else {
        setFailure(err instanceof ApiFailure ? err : new ApiFailure(String(err), 0, null, null, null));
      }
    } finally {
      setBusy(false);
    }
  };

  const dirty = doc !== null && JSON.stringify(doc) !== JSON.stringify(config.data);
  return (
    <section class="schedules-page" aria-labelledby="schedules-title">
      <h1 id="schedules-title">Schedules</h1>
      <p class="muted">
        Fixed schedules run beside the smart plan. An <strong>override</strong> schedule waters its zones as
        written on its days, and the smart plan stands down for them; a <strong>floor</strong> schedule only
        tops up what smart watering has not given since its previous day. Both obey the watering restrictions
        and the measured skip rules (rain now, freeze, wind) unless told to ignore them.
      </p>
      <ErrorNotice error={schema.error ?? config.error} title="The schedules could not be loaded" />
      <ErrorNotice error={failure} title="That did not work" />
      <p role="status" aria-live="polite" class="muted">
        {status ?? ''}
      </p>
      {config.data !== null && rows.length === 0 && <p class="notice">No schedules yet: add one below.</p>}
      {rows.length > 0 && (
        <ScheduleList rows={rows} snapshot={irrigation.data} busy={busy} onToggle={toggle} />
      )}
      {spec && doc !== null && (
        <form
          aria-label="Edit schedules"
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            void save();
          }}
        >
          <h2>Add or edit</h2>
          <SchemaForm
            spec={spec}
            value={doc}
            onChange={(next, path) => {
              setDoc(next);
              const changed = formatPath(path);
              setEntries((current) => current.filter((e) => e.field !== changed));
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
          <div class="row">
            <button type="submit" class="primary" disabled={busy || !dirty}>
              Save schedules
            </button>
            {dirty && (
              <button type="button" disabled={busy} onClick={() => setDoc(structuredClone(config.data))}>
                Discard changes
              </button>
            )}
          </div>
        </form>
      )}
    </section>
  );
}

function ScheduleList({
  rows,
  snapshot,
  busy,
  onToggle,
}: {
  rows: ScheduleRow[];
  snapshot: IrrigationSnapshot | null;
  busy: boolean;
  onToggle: (row: ScheduleRow, enabled: boolean) => void;
}) {
  const timeZone = useYardZone(snapshot?.timezone);
  return (
    <ul class="schedule-list">
      {rows.map((row) => {
        const today = todayRuns(snapshot, row.slug);
        return (
          <li key={row.slug} class="card schedule-card" data-schedule={row.slug}>
            <div class="spread">
              <h2>{row.name}</h2>
              <label class="row">
                <input
                  type="checkbox"
                  role="switch"
                  checked={row.enabled}
                  disabled={busy}
                  aria-label={`${row.name} enabled`}
                  onChange={(e) => onToggle(row, (e.target as HTMLInputElement).checked)}
                />
                {row.enabled ? 'On' : 'Off'}
              </label>
            </div>
            <dl class="facts">
              <div>
                <dt>Mode</dt>
                <dd>{row.mode}</dd>
              </div>
              <div>
                <dt>Zones</dt>
                <dd>{row.zones}</dd>
              </div>
              <div>
                <dt>Days</dt>
                <dd>
                  {row.days}
                  {row.season ? ` (${row.season})` : ''}
                </dd>
              </div>
              <div>
                <dt>Start</dt>
                <dd>{row.start}</dd>
              </div>
              <div>
                <dt>Amount</dt>
                <dd>{row.amount}</dd>
              </div>
            </dl>
            {today.length > 0 && (
              <ul class="muted small" aria-label={`${row.name} today`}>
                {today.map((run) => (
                  <li key={run.zone}>
                    Today, {run.zone}
                    {run.start_epoch !== null ? ` at ${formatTime(run.start_epoch, timeZone)}` : ''}:{' '}
                    {run.reason}
                  </li>
                ))}
              </ul>
            )}
          </li>
        );
      })}
    </ul>
  );
}
