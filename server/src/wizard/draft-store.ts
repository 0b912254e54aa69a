import { existsSync, mkdirSync, readFileSync, unlinkSync } from 'node:fs';
import { dirname } from 'node:path';
import { epochSeconds, type Clock } from '../core/clock';
import { removeStaleTempFiles, writeFileAtomic } from '../core/atomic-write';
import type { Logger } from '../core/logger';
import { isPlainObject, type JsonObject } from '../config/json-walk';
import { restoreSecrets } from '../config/secrets';
import { WizardError } from './wizard-error';

/**
 * The first-run wizard's draft: any JSON object the wizard UI is building,
 * persisted so a reload or a restart resumes where the owner left off.
 *
 * Storage decision: one file, `<data dir>/wizard-draft.json`, written with the
 * atomic writer (mode 0600, like the config it becomes), holding
 * `{updated_epoch, draft}`. A file rather than the controls table so the
 * wizard works when the database cannot be opened, and so the draft's
 * secrets never land in the database or its backups.
 *
 * Secrets: reads are redacted by the route. A write that sends a sentinel back
 * keeps the value the previous draft held at the same place (entries matched
 * by id, as for the config); changing a transport field beside such a restored
 * secret is refused (400 transport_field_mismatch). A sentinel the previous
 * draft cannot resolve is kept as it is: it stands for the live config's
 * secret (a draft seeded from it) and is resolved, or refused, at apply.
 */

export const DRAFT_FILE = 'wizard-draft.json';

export interface StoredDraft {
  draft: JsonObject;
  updated_epoch: number;
}

export class DraftStore {
  private cached: StoredDraft | null | undefined;

  constructor(
    private readonly path: string,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {}

  read(): StoredDraft | null {
    if (this.cached !== undefined) return this.cached;
    removeStaleTempFiles(this.path);
    this.cached = existsSync(this.path) ? this.parse(readFileSync(this.path, 'utf8')) : null;
    return this.cached;
  }

  /** Stores `incoming` as the draft, sentinels restored from the previous draft (see the header). */
  write(incoming: JsonObject): StoredDraft {
    const previous = this.read();
    const { value, mismatched } = restoreSecrets(incoming, previous?.draft ?? null);
    if (mismatched.length > 0) {
      const paths = mismatched.map((m) => m.path);
      throw new WizardError(
        400,
        'transport_field_mismatch',
        `${paths.join(', ')} decide where a stored secret is sent; re-enter the secret to change them`,
        { paths },
      );
    }
    const stored: StoredDraft = { draft: value as JsonObject, updated_epoch: epochSeconds(this.clock) };
    this.persist(stored);
    return stored;
  }

  /** Replaces the draft as given (seed from the live config); no restoring. */
  replace(draft: JsonObject): StoredDraft {
    const stored: StoredDraft = { draft, updated_epoch: epochSeconds(this.clock) };
    this.persist(stored);
    return stored;
  }

  /** Drops the draft; false when there was none. */
  clear(): boolean {
    const had = this.read() !== null;
    this.cached = null;
    if (existsSync(this.path)) unlinkSync(this.path);
    return had;
  }

  private persist(stored: StoredDraft): void {
    mkdirSync(dirname(this.path), { recursive: true });
    writeFileAtomic(this.path, `${JSON.stringify(stored)}\n`);
    this.cached = stored;
  }

  private parse(text: string): StoredDraft | null {
    try {
      const parsed: unknown = JSON.parse(text);
      if (isPlainObject(parsed) && isPlainObject(parsed.draft) && typeof parsed.updated_epoch === 'number') {
        return { draft: parsed.draft, updated_epoch: parsed.updated_epoch };
      }
    } catch {
      // fall through
    }
    this.log.warn({ path: this.path }, 'the wizard draft file is unreadable; treating it as absent');
    return null;
  }
}
