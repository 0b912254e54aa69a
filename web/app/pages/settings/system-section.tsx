import { useState } from 'preact/hooks';
import { ErrorNotice } from '../../components/error-notice';
import { api, ApiFailure, apiUrl } from '../../lib/api';
import { describeRestore, type RestoreAnswer } from './restore-model';

/**
 * Settings > System: download a backup, restore one (a preview of what the
 * upload holds and what will change, from the restore's dry run, before
 * anything is applied), restart (a warning naming the zones that water, and
 * the choice to restart anyway), and download diagnostics for a bug report.
 */

interface SnapshotZone {
  slug: string;
  name: string;
  running: boolean;
  running_known: boolean;
}

export function SystemSection() {
  return (
    <section class="settings-system" aria-label="System">
      <BackupCard />
      <RestoreCard />
      <RestartCard />
      <DiagnosticsCard />
    </section>
  );
}

function BackupCard() {
  return (
    <div class="card">
      <h2>Backup</h2>
      <p>
        One file with the configuration, its snapshots, the whole history (runs, decisions, weather readings,
        forecast archive), the account and API tokens, the zone controls and the zone photos.
      </p>
      <p class="notice notice-warn">
        The backup holds the configuration as it is, secrets included, and the account's password hash: keep
        it private. To share the state of this install (in a bug report), download the diagnostics instead.
      </p>
      <a class="button" href={apiUrl('backup')} download>
        Download backup
      </a>
    </div>
  );
}

function RestoreCard() {
  const [file, setFile] = useState<File | null>(null);
  const [preview, setPreview] = useState<RestoreAnswer | null>(null);
  const [result, setResult] = useState<RestoreAnswer | null>(null);
  const [busy, setBusy] = useState(false);
  const [failure, setFailure] = useState<unknown>(null);

  const send = async (chosen: File, dryRun: boolean): Promise<RestoreAnswer> => {
    const body = new FormData();
    body.append('file', chosen, chosen.name);
    return api<RestoreAnswer>(`backup/restore${dryRun ? '?dry_run=1' : ''}`, { method: 'POST', body });
  };

  const choose = async (chosen: File | null) => {
    setFile(chosen);
    setPreview(null);
    setResult(null);
    setFailure(null);
    if (!chosen) return;
    setBusy(true);
    try {
      setPreview(await send(chosen, true));
    } catch (err) {
      setFailure(err);
    } finally {
      setBusy(false);
    }
  };

  const apply = async () => {
    if (!file) return;
    setBusy(true);
    setFailure(null);
    try {
      setResult(await send(file, false));
      setPreview(null);
    } catch (err) {
      setFailure(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="card">
      <h2>Restore</h2>
      <p>
        Choose a backup (<code>.tar.gz</code>), a config file (<code>.toml</code>) or a database. Nothing
        changes until you have seen what it holds and applied it.
      </p>
      <label class="settings-file">
        Backup, config or database file
        <input
          type="file"
          accept=".gz,.tgz,.toml,.db,.sqlite,application/gzip"
          disabled={busy}
          onChange={(event) => void choose((event.currentTarget as HTMLInputElement).files?.[0] ?? null)}
        />
      </label>
      {busy && <p class="loading">Checking…</p>}
      <ErrorNotice error={failure} title="The restore was refused; nothing changed" />
      {preview && (
        <div class="settings-restore-preview" aria-label="Restore preview" role="region">
          <h3>What this file holds</h3>
          <ul>
            {describeRestore(preview).map((line) => (
              <li key={line}>{line}</li>
            ))}
          </ul>
          {preview.config && preview.config.changes.length > 0 && (
            <details open={preview.config.changes.length <= 12}>
              <summary>Configuration fields that change ({preview.config.changes.length})</summary>
              <ul class="settings-restore-paths">
                {preview.config.changes.map((path) => (
                  <li key={path}>
                    <code>{path}</code>
                  </li>
                ))}
              </ul>
            </details>
          )}
          <div class="row">
            <button type="button" class="danger" disabled={busy} onClick={() => void apply()}>
              Apply restore
            </button>
            <button type="button" disabled={busy} onClick={() => void choose(null)}>
              Cancel
            </button>
          </div>
        </div>
      )}
      <div role="status" aria-live="polite">
        {result && (
          <p class="notice notice-ok settings-ok">
            Restored.{' '}
            {result.config?.saved
              ? 'The configuration applies now (the one it replaced is kept as a snapshot). '
              : ''}
            {result.database?.staged
              ? 'The database swaps in at the next restart: restart below when no zone waters.'
              : ''}
          </p>
        )}
      </div>
    </div>
  );
}

function RestartCard() {
  const [running, setRunning] = useState<SnapshotZone[] | null>(null);
  const [state, setState] = useState<'idle' | 'confirm' | 'restarting' | 'back'>('idle');
  const [mode, setMode] = useState<string | null>(null);
  const [failure, setFailure] = useState<unknown>(null);

  const restart = async (force: boolean) => {
    setFailure(null);
    try {
      const answer = await api<{ mode: string }>('system/restart', { method: 'POST', json: { force } });
      setMode(answer.mode);
      setState('restarting');
      void waitUntilBack().then(() => setState('back'));
    } catch (err) {
      if (err instanceof ApiFailure && err.code === 'watering_in_progress') {
        const zones = ((err.body as { zones?: string[] }).zones ?? []).map((slug) => ({
          slug,
          name: slug,
          running: true,
          running_known: true,
        }));
        setRunning(zones);
        setState('confirm');
        return;
      }
      setFailure(err);
    }
  };

  const ask = async () => {
    setFailure(null);
    try {
      const snapshot = await api<{ zones: SnapshotZone[] }>('irrigation/snapshot');
      const watering = snapshot.zones.filter((z) => z.running && z.running_known);
      if (watering.length === 0) return restart(false);
      setRunning(watering);
      setState('confirm');
    } catch (err) {
      setFailure(err);
    }
  };

  return (
    <div class="card">
      <h2>Restart</h2>
      <p>
        Restarts the service: in Home Assistant the Supervisor restarts the add-on; elsewhere the service
        stops cleanly and its process manager (systemd, Docker) starts it again. A restored database swaps in
        then.
      </p>
      {state === 'confirm' && running && (
        <div class="notice notice-warn" role="alert">
          <p>
            {running.map((z) => z.name).join(', ')} {running.length === 1 ? 'is' : 'are'} watering now. While
            the service restarts nobody watches the open valve; when it is back it picks the run up again, or
            closes the valve if the run's time has passed.
          </p>
          <div class="row">
            <button type="button" class="danger" onClick={() => void restart(true)}>
              Restart anyway
            </button>
            <button type="button" onClick={() => setState('idle')}>
              Cancel
            </button>
          </div>
        </div>
      )}
      {state !== 'confirm' && (
        <button type="button" disabled={state === 'restarting'} onClick={() => void ask()}>
          Restart service
        </button>
      )}
      <div role="status" aria-live="polite">
        {state === 'restarting' && (
          <p class="loading">
            Restarting{mode === 'supervisor' ? ' through the Home Assistant Supervisor' : ''}…
          </p>
        )}
        {state === 'back' && <p class="notice notice-ok settings-ok">The service is back.</p>}
      </div>
      <ErrorNotice error={failure} title="The restart was refused" />
    </div>
  );
}

/** Polls /health until the service answers again after going away (at most two minutes). */
async function waitUntilBack(): Promise<void> {
  const deadline = Date.now() + 120_000;
  let wentAway = false;
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    try {
      await api('health');
      if (wentAway) return;
    } catch {
      wentAway = true;
    }
  }
}

function DiagnosticsCard() {
  return (
    <div class="card">
      <h2>Diagnostics</h2>
      <p>
        A report to attach to a bug report: versions, health, sources and controllers with their last errors,
        recent log errors, database size and integrity. Every secret of the configuration is removed from it.
      </p>
      <a class="button" href={apiUrl('diagnostics?download=1')} download="raincheck-diagnostics.json">
        Download diagnostics
      </a>
    </div>
  );
}
