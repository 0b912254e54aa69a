import { existsSync, mkdirSync, readdirSync, readFileSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../core/atomic-write';

/**
 * Config history: before every save the previous file is kept as one snapshot
 * file, `<ts>.toml`, whose first line is a comment carrying its metadata. One
 * file per snapshot keeps each snapshot write atomic on its own.
 */

export const SNAPSHOTS_RETAINED = 20;
const HEADER = '# raincheck-snapshot ';
const NAME = /^(\d{13,})\.toml$/;

export interface SnapshotInfo {
  ts: string;
  applied_at_epoch: number | null;
  schema_version: number | null;
  note: string;
}

export class SnapshotStore {
  constructor(private readonly dir: string) {}

  get directory(): string {
    return this.dir;
  }

  /** Keeps `text` as a snapshot and prunes beyond the newest 20; returns its ts. */
  add(text: string, meta: Omit<SnapshotInfo, 'ts'>, nowMs: number): string {
    mkdirSync(this.dir, { recursive: true });
    const ts = this.freeTs(nowMs);
    writeFileAtomic(join(this.dir, `${ts}.toml`), `${HEADER}${JSON.stringify(meta)}\n${text}`);
    this.prune();
    return ts;
  }

  /**
   * Adds snapshot files (`<ts>.toml`, header included) that are not here yet,
   * then prunes to the newest 20; returns how many were added.
   */
  importMissing(files: { name: string; text: string }[]): number {
    mkdirSync(this.dir, { recursive: true });
    let added = 0;
    for (const { name, text } of files) {
      const path = join(this.dir, name);
      if (!NAME.test(name) || existsSync(path)) continue;
      writeFileAtomic(path, text);
      added += 1;
    }
    this.prune();
    return added;
  }

  /** Newest first. */
  list(): SnapshotInfo[] {
    return this.names()
      .reverse()
      .map((ts) => this.info(ts));
  }

  /** The config text of one snapshot (without its header), or null when there is none. */
  read(ts: string): string | null {
    if (!/^\d{13,}$/.test(ts)) return null;
    const path = join(this.dir, `${ts}.toml`);
    if (!existsSync(path)) return null;
    const text = readFileSync(path, 'utf8');
    return text.startsWith(HEADER) ? text.slice(text.indexOf('\n') + 1) : text;
  }

  private info(ts: string): SnapshotInfo {
    const first = readFileSync(join(this.dir, `${ts}.toml`), 'utf8').split('\n', 1)[0] ?? '';
    const meta = first.startsWith(HEADER) ? safeJson(first.slice(HEADER.length)) : {};
    return {
      ts,
      applied_at_epoch: typeof meta.applied_at_epoch === 'number' ? meta.applied_at_epoch : null,
      schema_version: typeof meta.schema_version === 'number' ? meta.schema_version : null,
      note: typeof meta.note === 'string' ? meta.note : '',
    };
  }

  /** Oldest first; ts strings are zero-padded epoch milliseconds so they sort as text. */
  private names(): string[] {
    if (!existsSync(this.dir)) return [];
    return readdirSync(this.dir)
      .map((name) => NAME.exec(name)?.[1])
      .filter((ts): ts is string => ts !== undefined)
      .sort();
  }

  /** Strictly after the newest existing snapshot, so order survives a clock step backwards. */
  private freeTs(nowMs: number): string {
    const newest = this.names().at(-1);
    return pad(newest === undefined ? nowMs : Math.max(nowMs, Number(newest) + 1));
  }

  private prune(): void {
    const names = this.names();
    for (const ts of names.slice(0, Math.max(0, names.length - SNAPSHOTS_RETAINED))) {
      unlinkSync(join(this.dir, `${ts}.toml`));
    }
  }
}

function pad(ms: number): string {
  return String(Math.floor(ms)).padStart(13, '0');
}

function safeJson(text: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}
