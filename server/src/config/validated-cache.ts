import { createHash } from 'node:crypto';
import { existsSync, readFileSync, unlinkSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { writeFileAtomic } from '../core/atomic-write';
import type { KindConfigs } from './config-types';
import { copyPlain, isPlainObject, type JsonObject } from './json-walk';
import { knownControllerKinds, knownSourceKinds } from './kinds';
import type { RaincheckConfig } from './schema';
import type { ValidationReport } from './validate';

/**
 * What validating config.toml gave, kept beside it (`config.validated.json`)
 * so a restart with an unchanged file adopts it without validating again:
 * validation builds the zod schemas (about 4.5 MB of an idle service).
 *
 * The entry is keyed by a sha256 of the build id (core/build-id.ts: the
 * compiled code, Node and the validating packages), the registered source and
 * controller kinds, and the file's exact bytes. Any other file (a hand edit of
 * one byte, a write interrupted between the config and this file), another
 * build, or an unreadable entry misses, and the file is validated as before.
 * Files that use `${VAR}` interpolation are never cached (their meaning
 * depends on the environment, and an interpolated secret must not reach
 * disk). Without a build id (running from sources) nothing is cached.
 */

export const VALIDATED_CACHE_FILE = 'config.validated.json';
const FORMAT = 1;

export interface CachedValidation {
  config: RaincheckConfig;
  kindConfigs: KindConfigs;
  report: ValidationReport;
}

interface Entry extends CachedValidation {
  format: number;
  key: string;
}

export class ValidatedConfigCache {
  constructor(
    readonly path: string,
    private readonly buildId: string | null,
  ) {}

  /** The key of a config file's bytes, or null when such a file is not cached (no build id, `${`). */
  keyFor(bytes: Buffer): string | null {
    if (this.buildId === null || bytes.includes('${')) return null;
    return createHash('sha256')
      .update(`${this.buildId}\n${knownSourceKinds().join(',')}\n${knownControllerKinds().join(',')}\n`)
      .update(bytes)
      .digest('hex');
  }

  /** The cached validation of `bytes` (which parse to `doc`), or null on any miss. */
  read(bytes: Buffer, doc: JsonObject): CachedValidation | null {
    const key = this.keyFor(bytes);
    if (key === null || usesInterpolation(doc) || !existsSync(this.path)) return null;
    let entry: unknown;
    try {
      entry = JSON.parse(readFileSync(this.path, 'utf8'));
    } catch {
      return null;
    }
    if (!isEntry(entry) || entry.key !== key) return null;
    return { config: entry.config, kindConfigs: entry.kindConfigs, report: entry.report };
  }

  /**
   * Records the validation of `bytes` (which parse to `doc`); removes any
   * older entry instead when this one cannot be kept faithfully. Returns
   * whether an entry was written. Throws only what the file system throws.
   */
  write(bytes: Buffer, doc: JsonObject, value: CachedValidation): boolean {
    const key = this.keyFor(bytes);
    const entry: Entry = { format: FORMAT, key: key ?? '', ...value };
    const text = JSON.stringify(entry);
    // Only what JSON carries exactly (no dates, NaN, -0 or undefined members): a cached boot
    // must apply what validating gives, deep equal. (copyPlain: prototypes do not matter.)
    if (
      key === null ||
      usesInterpolation(doc) ||
      !value.report.ok ||
      !isDeepStrictEqual(JSON.parse(text), copyPlain(entry))
    ) {
      this.remove();
      return false;
    }
    writeFileAtomic(this.path, text);
    return true;
  }

  remove(): void {
    try {
      unlinkSync(this.path);
    } catch {
      // absent already
    }
  }
}

/** A `${` anywhere in the parsed document (a TOML escape such as `\u0024{` hides it from the bytes). */
function usesInterpolation(doc: JsonObject): boolean {
  return JSON.stringify(doc).includes('${');
}

function isEntry(value: unknown): value is Entry {
  if (!isPlainObject(value) || value.format !== FORMAT || typeof value.key !== 'string') return false;
  const { config, kindConfigs, report } = value;
  return (
    isPlainObject(config) &&
    isPlainObject(kindConfigs) &&
    isPlainObject(kindConfigs.sources) &&
    isPlainObject(kindConfigs.controllers) &&
    isPlainObject(report) &&
    report.ok === true &&
    Array.isArray(report.errors) &&
    report.errors.length === 0 &&
    Array.isArray(report.warnings)
  );
}
