import { useEffect, useState } from 'preact/hooks';
import { ErrorNotice } from '../../components/error-notice';
import { api } from '../../lib/api';
import { formatDateTime } from '../../lib/time';
import { useYardZone } from '../../lib/yard-time';
import { formatQuantity, useUnits, type Quantity } from '../../lib/units';
import { useApi } from '../../lib/use-api';
import {
  fromLocalInput,
  fromManifest,
  fromSnapshot,
  GLOBAL_OVERRIDES,
  mergeViews,
  planThresholds,
  THRESHOLDS,
  toLocalInput,
  TOMORROW_OVERRIDES,
  type ThresholdKey,
} from './controls-model';

/**
 * Settings > Thresholds: the three skip thresholds (set_threshold), the
 * pause toggle and pause-until, and the global and tomorrow overrides
 * (spec 4.4 POST irrigation/action). Current values come from the entity
 * manifest, else from the irrigation snapshot.
 */

type Area = 'thresholds' | 'pause' | 'overrides';

/** The outcome of the last action in one card: a status line (always present, for announcements) and errors. */
function Outcome({
  shown,
  status,
  failures,
}: {
  shown: boolean;
  status: string | null;
  failures: unknown[];
}) {
  return (
    <>
      <div role="status" aria-live="polite">
        {shown && status && <p class="notice notice-ok settings-ok">{status}</p>}
      </div>
      {shown && failures.map((f, i) => <ErrorNotice key={i} error={f} title="Not saved" />)}
    </>
  );
}

const QUANTITY: Record<ThresholdKey, Quantity> = {
  max_wind_mph: 'wind_mph',
  min_temp_f: 'temp_f',
  rain_skip_in: 'rain_in',
};

const OVERRIDE_HELP: Record<string, string> = {
  auto: 'the engine decides',
  skip: 'hold all watering',
  run: 'water even past skip conditions',
  none: 'the engine decides',
};

export function ThresholdsSection() {
  const units = useUnits();
  const manifest = useApi<unknown>('sensors/manifest');
  const snapshot = useApi<unknown>('irrigation/snapshot');
  const timeZone = useYardZone((snapshot.data as { timezone?: string } | null)?.timezone);
  const [edited, setEdited] = useState<Partial<Record<ThresholdKey, string>>>({});
  const [inputErrors, setInputErrors] = useState<Partial<Record<ThresholdKey, string>>>({});
  // Where the last outcome is shown: next to the control that caused it.
  const [area, setArea] = useState<Area>('thresholds');
  const [failures, setFailures] = useState<unknown[]>([]);
  const [status, setStatus] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [pauseText, setPauseText] = useState('');
  const [globalMode, setGlobalMode] = useState<string | null>(null);
  const [tomorrowMode, setTomorrowMode] = useState<string | null>(null);

  // The toggle shows the state asked for until the reloaded values arrive.
  const [pausePending, setPausePending] = useState<boolean | null>(null);
  useEffect(() => setPausePending(null), [manifest.data, snapshot.data]);

  const view = mergeViews(fromManifest(manifest.data), fromSnapshot(snapshot.data));
  const reload = () => {
    manifest.reload();
    snapshot.reload();
  };

  const act = async (where: Area, body: Record<string, unknown>, done: string): Promise<boolean> => {
    setArea(where);
    setBusy(true);
    setFailures([]);
    setStatus(null);
    try {
      await api('irrigation/action', { method: 'POST', json: body });
      setStatus(done);
      reload();
      return true;
    } catch (err) {
      setFailures([err]);
      return false;
    } finally {
      setBusy(false);
    }
  };

  const saveThresholds = async () => {
    const plan = planThresholds(view.thresholds, edited);
    setInputErrors(plan.errors);
    setArea('thresholds');
    setStatus(null);
    setFailures([]);
    if (Object.keys(plan.errors).length > 0) return;
    if (plan.actions.length === 0) {
      setStatus('Nothing to save: the thresholds are unchanged.');
      return;
    }
    setBusy(true);
    const saved: string[] = [];
    const failed: unknown[] = [];
    for (const action of plan.actions) {
      try {
        await api('irrigation/action', { method: 'POST', json: action });
        const spec = THRESHOLDS.find((t) => t.key === action.key);
        saved.push(`${spec?.label ?? action.key} = ${action.value}`);
      } catch (err) {
        failed.push(err);
      }
    }
    setBusy(false);
    setFailures(failed);
    if (saved.length > 0) setStatus(`Saved ${saved.join(', ')}.`);
    setEdited({});
    reload();
  };

  const loadError = snapshot.error && manifest.error ? snapshot.error : null;
  const loading = (manifest.loading || snapshot.loading) && !manifest.data && !snapshot.data;
  const pauseUntil = view.pauseUntilEpoch;
  const globalValue = globalMode ?? view.globalOverride ?? 'auto';
  const tomorrowValue = tomorrowMode ?? view.overrideTomorrow ?? 'none';

  return (
    <section class="settings-thresholds" aria-label="Thresholds and skip rules">
      <ErrorNotice error={loadError} title="The current values could not be loaded" />
      {loading && <p class="loading">Loading the current values…</p>}

      <form
        class="card"
        noValidate
        aria-labelledby="thresholds-title"
        onSubmit={(e) => {
          e.preventDefault();
          void saveThresholds();
        }}
      >
        <h2 id="thresholds-title">Skip thresholds</h2>
        <p class="muted settings-lead">
          The skip check holds watering past these limits. Values are in the service’s units (mph, °F, inches)
          and apply from the next check; they override <code>engine.skip_rules</code> of the configuration.
        </p>
        <div class="settings-grid">
          {THRESHOLDS.map((spec) => {
            const current = view.thresholds[spec.key];
            const text = edited[spec.key] ?? (current === null ? '' : String(current));
            const error = inputErrors[spec.key];
            const id = `threshold-${spec.key}`;
            const shownNumber = Number(text);
            return (
              <div class="field" key={spec.key}>
                <label for={id}>{spec.label}</label>
                <input
                  id={id}
                  type="number"
                  inputMode="decimal"
                  min={spec.min}
                  max={spec.max}
                  step={spec.step}
                  value={text}
                  aria-invalid={error ? 'true' : undefined}
                  aria-describedby={`${id}-help${error ? ` ${id}-error` : ''}`}
                  onInput={(e) => {
                    const value = (e.currentTarget as HTMLInputElement).value;
                    setEdited((cur) => ({ ...cur, [spec.key]: value }));
                    setInputErrors((cur) => {
                      const next = { ...cur };
                      delete next[spec.key];
                      return next;
                    });
                  }}
                />
                <p class="help" id={`${id}-help`}>
                  {spec.help} Range {spec.min}–{spec.max}.{' '}
                  {current === null ? (
                    <span class="unknown">Current value unknown.</span>
                  ) : (
                    <>Now {current}.</>
                  )}
                  {units === 'metric' && text !== '' && Number.isFinite(shownNumber) && (
                    <> ({formatQuantity(QUANTITY[spec.key], shownNumber, 'metric')})</>
                  )}
                </p>
                {error && (
                  <p class="field-error" id={`${id}-error`}>
                    {error}
                  </p>
                )}
              </div>
            );
          })}
        </div>
        {Object.keys(inputErrors).length > 0 && (
          <p class="notice notice-error" role="alert">
            Nothing was saved: fix the values marked above.
          </p>
        )}
        <Outcome shown={area === 'thresholds'} status={status} failures={failures} />
        <div class="row">
          <button type="submit" class="primary" disabled={busy}>
            Save thresholds
          </button>
          {Object.keys(edited).length > 0 && (
            <button type="button" disabled={busy} onClick={() => setEdited({})}>
              Discard changes
            </button>
          )}
        </div>
      </form>

      <div class="card">
        <h2>Pause</h2>
        <Outcome shown={area === 'pause'} status={status} failures={failures} />
        <div class="field sf-check settings-check">
          <input
            id="control-pause"
            type="checkbox"
            checked={pausePending ?? view.paused === true}
            disabled={busy || view.paused === null}
            aria-describedby="control-pause-help"
            onChange={(e) => {
              const on = (e.currentTarget as HTMLInputElement).checked;
              setPausePending(on);
              void act(
                'pause',
                { kind: 'toggle', key: 'irrigation_pause', on },
                on ? 'Watering is paused.' : 'Watering is no longer paused.',
              ).then((ok) => !ok && setPausePending(null));
            }}
          />
          <div>
            <label for="control-pause">Pause watering</label>
            <p class="help" id="control-pause-help">
              {view.paused === null
                ? 'Current state unknown.'
                : view.paused
                  ? 'Paused: no scheduled watering runs. Turning this off also ends a timed pause.'
                  : 'Not paused.'}
            </p>
          </div>
        </div>
        <div class="settings-pause-until">
          <div class="field">
            <label for="control-pause-until">Pause until</label>
            <input
              id="control-pause-until"
              type="datetime-local"
              value={pauseText}
              aria-describedby="control-pause-until-help"
              onInput={(e) => setPauseText((e.currentTarget as HTMLInputElement).value)}
            />
            <p class="help" id="control-pause-until-help">
              {pauseUntil === null ? (
                <span class="unknown">Timed pause unknown.</span>
              ) : pauseUntil > 0 ? (
                <>Paused until {formatDateTime(pauseUntil, timeZone)}.</>
              ) : (
                'No timed pause.'
              )}{' '}
              {timeZone
                ? `The yard’s local time (${timeZone.replace(/_/g, ' ')}).`
                : 'Your device’s local time.'}
            </p>
          </div>
          <div class="row">
            <button
              type="button"
              disabled={busy || fromLocalInput(pauseText, timeZone) === null}
              onClick={() => {
                const epoch = fromLocalInput(pauseText, timeZone);
                if (epoch === null) return;
                void act(
                  'pause',
                  { kind: 'set_pause_until', epoch },
                  `Watering is paused until ${formatDateTime(epoch, timeZone)}.`,
                ).then((ok) => ok && setPauseText(''));
              }}
            >
              Set pause-until
            </button>
            {pauseUntil !== null && pauseUntil > 0 && (
              <button
                type="button"
                disabled={busy}
                onClick={() =>
                  void act('pause', { kind: 'clear_pause_until' }, 'The timed pause was cleared.')
                }
              >
                Clear pause-until
              </button>
            )}
            {pauseUntil === 0 && pauseText === '' && (
              <button
                type="button"
                disabled={busy}
                onClick={() => setPauseText(toLocalInput(Date.now() / 1000 + 86400, timeZone))}
              >
                24 hours from now
              </button>
            )}
          </div>
        </div>
      </div>

      <div class="card">
        <h2>Overrides</h2>
        <Outcome shown={area === 'overrides'} status={status} failures={failures} />
        <div class="settings-grid settings-grid-wide">
          <div class="field">
            <label for="control-global">Global override</label>
            <div class="row">
              <select
                id="control-global"
                value={globalValue}
                aria-describedby="control-global-help"
                onChange={(e) => setGlobalMode((e.currentTarget as HTMLSelectElement).value)}
              >
                {GLOBAL_OVERRIDES.map((mode) => (
                  <option key={mode} value={mode}>
                    {mode} ({OVERRIDE_HELP[mode]})
                  </option>
                ))}
              </select>
              <button
                type="button"
                disabled={busy || globalValue === view.globalOverride}
                onClick={() =>
                  void act(
                    'overrides',
                    { kind: 'set_global_override', mode: globalValue },
                    `Global override set to ${globalValue}.`,
                  ).then((ok) => ok && setGlobalMode(null))
                }
              >
                Apply override
              </button>
            </div>
            <p class="help" id="control-global-help">
              Now: {view.globalOverride ?? <span class="unknown">unknown</span>}. Sticky: it stays until
              changed (no nightly reset); a zone’s own override beats it.
            </p>
          </div>
          <div class="field">
            <label for="control-tomorrow">Tomorrow override</label>
            <div class="row">
              <select
                id="control-tomorrow"
                value={tomorrowValue}
                aria-describedby="control-tomorrow-help"
                onChange={(e) => setTomorrowMode((e.currentTarget as HTMLSelectElement).value)}
              >
                {TOMORROW_OVERRIDES.map((mode) => (
                  <option key={mode} value={mode}>
                    {mode} ({OVERRIDE_HELP[mode]})
                  </option>
                ))}
              </select>
              <button
                type="button"
                disabled={busy || tomorrowValue === view.overrideTomorrow}
                onClick={() =>
                  void act(
                    'overrides',
                    { kind: 'set_override_tomorrow', mode: tomorrowValue },
                    `Tomorrow override set to ${tomorrowValue}.`,
                  ).then((ok) => ok && setTomorrowMode(null))
                }
              >
                Apply tomorrow override
              </button>
            </div>
            <p class="help" id="control-tomorrow-help">
              Now: {view.overrideTomorrow ?? <span class="unknown">unknown</span>}. Applies to tomorrow only.
            </p>
          </div>
        </div>
      </div>
    </section>
  );
}
