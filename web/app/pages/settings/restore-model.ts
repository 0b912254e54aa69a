import { formatDateTime } from '../../lib/time';

/** POST /backup/restore's answer (docs/operations.md), and the preview lines the System section lists. */
export interface RestoreAnswer {
  dry_run: boolean;
  kind: 'bundle' | 'config' | 'database';
  bundle: {
    created_epoch: number;
    service_version: string;
    build_revision: string;
    install_id: string | null;
    files: number;
  } | null;
  config: {
    changed: boolean;
    changes: string[];
    validation: { ok: boolean; warnings: { message: string }[] };
    saved: { revision: number; previous_snapshot_ts: string | null } | null;
  } | null;
  database: {
    schema_version: number;
    migrates_to: number;
    rows: Record<string, number>;
    current_rows: Record<string, number> | null;
    staged: boolean;
  } | null;
  snapshots: { in_upload: number; added: number };
  photos: { in_upload: number; added: number };
  restart_required: boolean;
}

const TABLE_LABELS: Record<string, string> = {
  runs: 'run records',
  daily_decisions: 'daily decisions',
  readings: 'weather readings',
  forecast_archive: 'forecast archive rows',
  accounts: 'accounts',
  api_tokens: 'API tokens',
};

const count = (n: number) => n.toLocaleString('en-US');

function rowsLine(rows: Record<string, number>, current: Record<string, number> | null): string {
  return Object.entries(TABLE_LABELS)
    .filter(([table]) => rows[table] !== undefined)
    .map(([table, label]) => {
      const now = current?.[table];
      return `${count(rows[table] ?? 0)} ${label}${now === undefined ? '' : ` (now ${count(now)})`}`;
    })
    .join(', ');
}

/** What the upload holds and what applying it changes, one sentence each. */
export function describeRestore(answer: RestoreAnswer): string[] {
  const lines: string[] = [];
  if (answer.bundle) {
    lines.push(
      `A backup of Raincheck ${answer.bundle.service_version}, taken ${formatDateTime(answer.bundle.created_epoch)}, ${answer.bundle.files} files.`,
    );
  } else lines.push(answer.kind === 'config' ? 'A config file.' : 'A database file.');
  if (answer.config) {
    lines.push(
      answer.config.changed
        ? `Configuration: ${answer.config.changes.length} field${answer.config.changes.length === 1 ? '' : 's'} change; it applies at once and the current one is kept as a snapshot.`
        : 'Configuration: the same as now; nothing changes.',
    );
  }
  if (answer.database) {
    const migrate =
      answer.database.schema_version < answer.database.migrates_to
        ? ` It has schema version ${answer.database.schema_version} and is upgraded to ${answer.database.migrates_to} at the restart.`
        : '';
    lines.push(
      `Database: ${rowsLine(answer.database.rows, answer.database.current_rows)}. It replaces the current history at the next restart.${migrate}`,
    );
  }
  if (answer.snapshots.in_upload > 0)
    lines.push(`${answer.snapshots.in_upload} config snapshots (missing ones are added).`);
  if (answer.photos.in_upload > 0)
    lines.push(`${answer.photos.in_upload} zone photos (missing ones are added).`);
  return lines;
}
