import { useEffect, useId, useState } from 'preact/hooks';
import { ErrorNotice } from '../../components/error-notice';
import { api } from '../../lib/api';
import { appUrl } from '../../lib/base';
import { formatQuantity, useUnits } from '../../lib/units';
import type { ActionResult, OverrideMode, Zone } from './irrigation-types';
import {
  bucketGauge,
  depletionOf,
  OVERRIDE_LABELS,
  runAnnouncement,
  stopAnnouncement,
  zoneStateText,
  type Format,
} from './zone-model';
import { STANDING_LABELS, type StandingKind } from './zone-standing';
import './zones.css';

/** Pieces shared by the zone cards (/zones) and the zone page (/zones/<slug>). */

export function useFormat(): Format {
  const units = useUnits();
  return (quantity, value) => formatQuantity(quantity, value, units);
}

export function StateBadge({ zone }: { zone: Zone }) {
  const state = zoneStateText(zone);
  const tone = state === 'Running' ? 'ok' : state === 'Unknown' ? 'warn' : '';
  const hint =
    state === 'Unknown'
      ? zone.ledger_running
        ? 'The controller cannot report whether this zone is open; a run was started and may still be going.'
        : 'The controller cannot report whether this zone is open.'
      : undefined;
  return (
    <span class={`badge zone-state ${tone}`} data-testid="zone-state" title={hint}>
      {state}
    </span>
  );
}

const STANDING_TONE: Record<StandingKind, string> = {
  watering: 'ok',
  waiting: '',
  held: 'warn',
  unknown: 'warn',
  not_due: '',
};

/** The zone's standing today in the engine's words, the same as the dashboard's group (zone-standing.ts). */
export function StandingBadge({ standing }: { standing: StandingKind | null }) {
  if (standing === null) return null;
  return (
    <span class={`badge ${STANDING_TONE[standing]}`} data-testid="zone-standing" data-standing={standing}>
      {STANDING_LABELS[standing]}
    </span>
  );
}

/** The soil bucket; `standing` is the engine's verdict (not the gauge's depletion against RAW). */
export function BucketGauge({ zone, standing }: { zone: Zone; standing: StandingKind | null }) {
  const fmt = useFormat();
  const gauge = bucketGauge(depletionOf(zone), fmt);
  const known = gauge.fillPct !== null || gauge.rangePct !== null;
  return (
    <div class="bucket">
      <div class="bucket-head">
        <span class="bucket-label">Soil dryness</span>
        <StandingBadge standing={standing} />
      </div>
      <div class={`gauge${known ? '' : ' gauge-unknown'}`} aria-hidden="true">
        {gauge.fillPct !== null && <div class="fill" style={{ width: `${gauge.fillPct}%` }} />}
        {gauge.rangePct && (
          <div
            class="range"
            style={{
              left: `${gauge.rangePct[0]}%`,
              width: `${gauge.rangePct[1] - gauge.rangePct[0]}%`,
            }}
          />
        )}
        {gauge.markPct !== null && <div class="mark" style={{ left: `calc(${gauge.markPct}% - 1px)` }} />}
      </div>
      <p class="bucket-text">
        {!known && <span class="unknown">Unknown. </span>}
        {gauge.text}
      </p>
    </div>
  );
}

export function ZonePhoto({
  url,
  name,
  large = false,
}: {
  url: string | null | undefined;
  name: string;
  large?: boolean;
}) {
  const [broken, setBroken] = useState(false);
  if (!url || broken) return null;
  return (
    <img
      class={large ? 'zone-photo large' : 'zone-photo'}
      src={appUrl(url)}
      alt={`Photo of ${name}`}
      loading="lazy"
      onError={() => setBroken(true)}
    />
  );
}

const QUICK_RUNS = [5, 10, 30];
const PHOTO_TYPES = 'image/jpeg,image/png,image/gif,image/webp';

interface ConfigDoc {
  zones?: Record<string, Record<string, unknown>>;
}

/**
 * Quick run / stop, the per-zone override and the photo upload. Results are
 * announced in the zone's status region; failures show the server's message
 * and request id. `onChanged` refreshes the live snapshot at once.
 */
export function ZoneControls({
  zone,
  override,
  onChanged,
  onPhotoSaved,
}: {
  zone: Zone;
  override: OverrideMode | null;
  onChanged: () => void;
  onPhotoSaved: () => void;
}) {
  const id = useId();
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState('');
  const [error, setError] = useState<{ title: string; error: unknown } | null>(null);
  const [chosen, setChosen] = useState<OverrideMode | null>(null);
  const shownOverride = chosen ?? override ?? 'auto';
  // Once the snapshot reports the override, it is the truth again (it may also change elsewhere).
  useEffect(() => {
    if (override !== null) setChosen(null);
  }, [override]);

  const act = async (title: string, body: unknown, done: (result: ActionResult) => string) => {
    setBusy(true);
    setError(null);
    setStatus('');
    try {
      const result = await api<ActionResult>('irrigation/action', { method: 'POST', json: body });
      setStatus(done(result));
      onChanged();
      return true;
    } catch (err) {
      setError({ title, error: err });
      return false;
    } finally {
      setBusy(false);
    }
  };

  const run = (minutes: number) =>
    act(`Could not start ${zone.name}`, { kind: 'run', zone: zone.slug, seconds: minutes * 60 }, (r) =>
      runAnnouncement(zone.name, minutes, r),
    );
  const stop = () =>
    act(`Could not stop ${zone.name}`, { kind: 'stop', zone: zone.slug }, (r) =>
      stopAnnouncement(zone.name, r),
    );
  const setOverride = async (mode: OverrideMode) => {
    const previous = shownOverride;
    setChosen(mode);
    const ok = await act(
      `Could not change the override of ${zone.name}`,
      { kind: 'set_zone_override', zone: zone.slug, mode },
      () => `${zone.name} override set to ${OVERRIDE_LABELS[mode]}`,
    );
    if (!ok) setChosen(previous);
  };

  const upload = async (input: HTMLInputElement) => {
    const file = input.files?.[0];
    if (!file) return;
    setBusy(true);
    setError(null);
    setStatus(`Uploading the photo of ${zone.name}…`);
    try {
      const form = new FormData();
      form.append('file', file);
      const stored = await api<{ url: string; filename: string }>('zones/photo', {
        method: 'POST',
        body: form,
      });
      // The zone keeps the photo in its config (`photo_url`, stored as returned: a relative URL).
      const config = await api<ConfigDoc>('config');
      const zones = config.zones ?? {};
      zones[zone.slug] = { ...(zones[zone.slug] ?? {}), photo_url: stored.url };
      await api('config', { method: 'PUT', json: { ...config, zones } });
      setStatus(`Photo of ${zone.name} saved`);
      onPhotoSaved();
    } catch (err) {
      setStatus('');
      setError({ title: `Could not save the photo of ${zone.name}`, error: err });
    } finally {
      setBusy(false);
      input.value = '';
    }
  };

  return (
    <div class="zone-controls">
      <div class="row quick-run" role="group" aria-label={`Run ${zone.name} now`}>
        {QUICK_RUNS.map((minutes) => (
          <button type="button" class="run" disabled={busy} onClick={() => void run(minutes)} key={minutes}>
            Run {minutes} min
          </button>
        ))}
        <button type="button" class="danger" disabled={busy} onClick={() => void stop()}>
          Stop
        </button>
      </div>
      <div class="zone-settings">
        <div class="field">
          <label for={`${id}-override`}>Override</label>
          <select
            id={`${id}-override`}
            value={shownOverride}
            disabled={busy}
            aria-describedby={override === null && chosen === null ? `${id}-override-help` : undefined}
            onChange={(e) => void setOverride((e.currentTarget as HTMLSelectElement).value as OverrideMode)}
          >
            {(Object.keys(OVERRIDE_LABELS) as OverrideMode[]).map((mode) => (
              <option value={mode} key={mode}>
                {OVERRIDE_LABELS[mode]}
              </option>
            ))}
          </select>
          {override === null && chosen === null && (
            <div class="help" id={`${id}-override-help`}>
              The current setting is hidden by a pause or tomorrow's override.
            </div>
          )}
        </div>
        <div class="field">
          <label for={`${id}-photo`}>Photo</label>
          <input
            id={`${id}-photo`}
            type="file"
            accept={PHOTO_TYPES}
            disabled={busy}
            onChange={(e) => void upload(e.currentTarget as HTMLInputElement)}
          />
        </div>
      </div>
      <p class="zone-status" role="status">
        {status}
      </p>
      {error && <ErrorNotice error={error.error} title={error.title} />}
    </div>
  );
}
