import { useEffect, useState } from 'preact/hooks';
import { ErrorNotice } from '../../components/error-notice';
import { api, ApiFailure, apiText } from '../../lib/api';
import { formatDateTime } from '../../lib/time';
import { useYardZone } from '../../lib/yard-time';
import { useApi } from '../../lib/use-api';
import { diffLines, diffStats, toHunks, type Hunk } from './line-diff';

/**
 * Settings > Snapshots: the config files kept before each save (newest
 * first), a diff of one against the current file, and rollback with an
 * in-page confirmation.
 */

export interface SnapshotInfo {
  ts: string;
  applied_at_epoch: number | null;
  schema_version: number | null;
  note: string;
}

/**
 * Where a snapshot's TOML is read (GET /config/snapshots/{ts}, masked like
 * /config/raw; an addition to spec 4.5). An older service without it answers
 * 404 and the diff falls back to comparing what the list says.
 */
export const snapshotBodyPath = (ts: string) => `config/snapshots/${encodeURIComponent(ts)}`;

const tsEpoch = (ts: string) => Math.floor(Number(ts) / 1000);

/** A note as the user reads it: the snapshot ts it names ("before rollback to 1795320490081") as a time. */
function noteText(note: string, zone: string | undefined): string {
  return note.replace(/\b\d{13,}\b/g, (ts) => `the snapshot of ${formatDateTime(tsEpoch(ts), zone)}`);
}

export function SnapshotsSection() {
  const zone = useYardZone();
  const list = useApi<{ snapshots: SnapshotInfo[] }>('config/snapshots');
  const [confirming, setConfirming] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [status, setStatus] = useState<string | null>(null);
  const [failure, setFailure] = useState<unknown>(null);
  const [diffFor, setDiffFor] = useState<string | null>(null);

  const rollBack = async (snapshot: SnapshotInfo) => {
    setBusy(true);
    setFailure(null);
    setStatus(null);
    try {
      await api('config/rollback', { method: 'POST', json: { ts: snapshot.ts } });
      setStatus(
        `Rolled back to the configuration replaced on ${formatDateTime(tsEpoch(snapshot.ts), zone)}. ` +
          'The configuration before the rollback was kept as a new snapshot.',
      );
      setConfirming(null);
      setDiffFor(null);
      list.reload();
    } catch (err) {
      setFailure(err);
    } finally {
      setBusy(false);
    }
  };

  const snapshots = list.data?.snapshots ?? [];
  return (
    <section class="settings-snapshots" aria-label="Snapshots">
      <p class="muted settings-lead">
        Before every save the previous config file is kept here (the newest 20). Rolling back restores one;
        the config it replaces is kept as a snapshot too, so a rollback can itself be undone.
      </p>
      <div role="status" aria-live="polite">
        {status && <p class="notice notice-ok settings-ok">{status}</p>}
      </div>
      <ErrorNotice error={failure} title="The rollback failed" />
      <ErrorNotice error={list.error} title="The snapshots could not be loaded" />
      {list.loading && !list.data && <p class="loading">Loading snapshots…</p>}
      {list.data && snapshots.length === 0 && (
        <p class="card muted">No snapshots yet: one is kept at the first save.</p>
      )}
      <ol class="settings-snapshot-list">
        {snapshots.map((snapshot, index) => (
          <li key={snapshot.ts} class="card settings-snapshot">
            <div class="spread">
              <div>
                <h3>
                  <time dateTime={new Date(Number(snapshot.ts)).toISOString()}>
                    {formatDateTime(tsEpoch(snapshot.ts), zone)}
                  </time>
                  {index === 0 && <span class="badge"> newest</span>}
                </h3>
                <p class="settings-snapshot-meta">
                  <span>
                    {snapshot.note ? noteText(snapshot.note, zone) : <span class="unknown">no note</span>}
                  </span>
                  <span class="muted">
                    {' '}
                    · schema version {snapshot.schema_version ?? <span class="unknown">unknown</span>} · in
                    use since{' '}
                    {snapshot.applied_at_epoch === null ? (
                      <span class="unknown">unknown</span>
                    ) : (
                      formatDateTime(snapshot.applied_at_epoch, zone)
                    )}
                  </span>
                </p>
              </div>
              <div class="row">
                <button
                  type="button"
                  aria-expanded={diffFor === snapshot.ts}
                  onClick={() => setDiffFor(diffFor === snapshot.ts ? null : snapshot.ts)}
                >
                  {diffFor === snapshot.ts ? 'Hide diff' : 'Show diff'}
                </button>
                <button
                  type="button"
                  class="danger"
                  disabled={busy}
                  onClick={() => {
                    setConfirming(snapshot.ts);
                    setStatus(null);
                  }}
                >
                  Roll back
                </button>
              </div>
            </div>
            {confirming === snapshot.ts && (
              <div class="notice notice-warn settings-confirm" role="group" aria-label="Confirm rollback">
                <p>
                  Replace the current configuration with this snapshot from{' '}
                  {formatDateTime(tsEpoch(snapshot.ts), zone)}? The service applies it at once.
                </p>
                <div class="row">
                  <button
                    type="button"
                    class="primary"
                    disabled={busy}
                    onClick={() => void rollBack(snapshot)}
                  >
                    {busy ? 'Rolling back…' : 'Confirm rollback'}
                  </button>
                  <button type="button" disabled={busy} onClick={() => setConfirming(null)}>
                    Cancel
                  </button>
                </div>
              </div>
            )}
            {diffFor === snapshot.ts && <SnapshotDiff snapshot={snapshot} newest={snapshots[0] ?? null} />}
          </li>
        ))}
      </ol>
    </section>
  );
}

type DiffState =
  | { state: 'loading' }
  | { state: 'ready'; hunks: Hunk[]; added: number; removed: number }
  | { state: 'no_body'; currentVersion: number | null }
  | { state: 'failed'; error: unknown };

function SnapshotDiff({ snapshot, newest }: { snapshot: SnapshotInfo; newest: SnapshotInfo | null }) {
  const zone = useYardZone();
  const [diff, setDiff] = useState<DiffState>({ state: 'loading' });
  useEffect(() => {
    let alive = true;
    void loadDiff(snapshot.ts).then((next) => alive && setDiff(next));
    return () => {
      alive = false;
    };
  }, [snapshot.ts]);
  return (
    <div class="settings-diff">
      {diff.state === 'loading' && <p class="loading">Comparing with the current configuration…</p>}
      {diff.state === 'failed' && <ErrorNotice error={diff.error} title="The diff could not be made" />}
      {diff.state === 'no_body' && (
        <div>
          <p class="notice notice-warn">
            This service offers no way to read a snapshot’s content (the API lists snapshots but has no{' '}
            <code>GET config/snapshots/&lt;ts&gt;</code>), so the files cannot be compared line by line. What
            can be compared:
          </p>
          <div class="table-wrap">
            <table>
              <caption class="visually-hidden">Snapshot and current configuration</caption>
              <thead>
                <tr>
                  <th scope="col"></th>
                  <th scope="col">This snapshot</th>
                  <th scope="col">Current configuration</th>
                </tr>
              </thead>
              <tbody>
                <tr>
                  <th scope="row">Schema version</th>
                  <td>{snapshot.schema_version ?? <span class="unknown">unknown</span>}</td>
                  <td>{diff.currentVersion ?? <span class="unknown">unknown</span>}</td>
                </tr>
                <tr>
                  <th scope="row">In use since</th>
                  <td>
                    {snapshot.applied_at_epoch === null ? (
                      <span class="unknown">unknown</span>
                    ) : (
                      formatDateTime(snapshot.applied_at_epoch, zone)
                    )}
                  </td>
                  <td>
                    {newest ? formatDateTime(tsEpoch(newest.ts), zone) : <span class="unknown">unknown</span>}
                  </td>
                </tr>
                <tr>
                  <th scope="row">Replaced</th>
                  <td>
                    {formatDateTime(tsEpoch(snapshot.ts), zone)} (
                    {snapshot.note ? noteText(snapshot.note, zone) : 'no note'})
                  </td>
                  <td class="muted">in use now</td>
                </tr>
              </tbody>
            </table>
          </div>
        </div>
      )}
      {diff.state === 'ready' &&
        (diff.hunks.length === 0 ? (
          <p class="notice notice-ok">No difference: this snapshot matches the current configuration.</p>
        ) : (
          <>
            <p class="settings-diff-head">
              From this snapshot to the current configuration:{' '}
              <span class="settings-diff-add">+{diff.added}</span>{' '}
              <span class="settings-diff-del">−{diff.removed}</span> lines
            </p>
            <div class="settings-diff-body" role="table" aria-label="Line diff">
              {diff.hunks.map((hunk, h) => (
                <div key={h} role="rowgroup">
                  <div class="settings-diff-hunk" role="row">
                    <span role="cell">
                      @@ −{hunk.oldStart},{hunk.oldCount} +{hunk.newStart},{hunk.newCount} @@
                    </span>
                  </div>
                  {hunk.lines.map((line, i) => (
                    <div key={i} class={`settings-diff-line settings-diff-${line.op}`} role="row">
                      <span class="settings-diff-no" role="cell">
                        {line.oldNo ?? ''}
                      </span>
                      <span class="settings-diff-no" role="cell">
                        {line.newNo ?? ''}
                      </span>
                      <span class="settings-diff-text" role="cell">
                        <span class="visually-hidden">
                          {line.op === 'add' ? 'added: ' : line.op === 'del' ? 'removed: ' : ''}
                        </span>
                        <span aria-hidden="true">
                          {line.op === 'add' ? '+' : line.op === 'del' ? '−' : ' '}
                        </span>
                        {line.text}
                      </span>
                    </div>
                  ))}
                </div>
              ))}
            </div>
          </>
        ))}
    </div>
  );
}

async function loadDiff(ts: string): Promise<DiffState> {
  let before: string;
  try {
    before = await apiText(snapshotBodyPath(ts));
  } catch (err) {
    if (err instanceof ApiFailure && err.status === 404 && err.code === 'not_found') {
      const current = await api<{ schema_version?: unknown }>('config').catch(() => null);
      return {
        state: 'no_body',
        currentVersion: typeof current?.schema_version === 'number' ? current.schema_version : null,
      };
    }
    return { state: 'failed', error: err };
  }
  try {
    const after = await apiText('config/raw');
    const lines = diffLines(before, after);
    return { state: 'ready', hunks: toHunks(lines), ...diffStats(lines) };
  } catch (err) {
    return { state: 'failed', error: err };
  }
}
