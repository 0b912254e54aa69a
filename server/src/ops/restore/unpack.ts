import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import type { Header as Headers } from 'tar-stream';
import { isBundleEntry } from '../backup/layout';
import { refuse } from './restore-error';

/**
 * Unpacks an uploaded bundle into `<work dir>/bundle/`, entry by entry,
 * hashing each as it is written. Only the names a bundle may hold
 * (backup/layout.ts) and only regular files are accepted, so no entry can
 * name a path outside the work dir. The unpacked total is capped (a small
 * gzip can expand without bound).
 */

export interface UnpackedEntry {
  name: string;
  path: string;
  bytes: number;
  sha256: string;
}

export async function unpackBundle(
  upload: string,
  workDir: string,
  maxBytes: number,
): Promise<Map<string, UnpackedEntry>> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const tar = require('tar-stream') as typeof import('tar-stream');
  const root = join(workDir, 'bundle');
  const entries = new Map<string, UnpackedEntry>();
  let total = 0;
  const extract = tar.extract();
  extract.on('entry', (header: Headers, stream, next) => {
    const name = header.name;
    // The extractor's failure reaches the pipeline below; the entry's own copy of it is not news.
    stream.on('error', () => undefined);
    const failure = entryProblem(header, entries);
    if (failure) {
      stream.resume();
      extract.destroy(failure);
      return;
    }
    const path = join(root, name);
    mkdirSync(dirname(path), { recursive: true });
    const hash = createHash('sha256');
    let bytes = 0;
    const out: WriteStream = createWriteStream(path, { mode: 0o600 });
    // A disk failure fails the restore; a write cut off by our own teardown is no news.
    out.on('error', (err) => {
      if (!extract.destroyed) extract.destroy(err);
    });
    stream.on('data', (data: unknown) => {
      const chunk = data as Buffer;
      bytes += chunk.length;
      total += chunk.length;
      if (total > maxBytes) {
        extract.destroy(
          refuse(
            'backup_too_large',
            `the bundle unpacks to more than ${Math.round(maxBytes / 1024 / 1024)} MB`,
          ),
        );
        return;
      }
      hash.update(chunk);
      if (!out.write(chunk)) {
        stream.pause();
        out.once('drain', () => stream.resume());
      }
    });
    stream.on('end', () => {
      out.end(() => {
        entries.set(name, { name, path, bytes, sha256: hash.digest('hex') });
        next();
      });
    });
    stream.on('error', () => out.destroy());
  });
  try {
    await pipeline(createReadStream(upload), createGunzip(), extract);
  } catch (err) {
    throw classify(err);
  }
  return entries;
}

function entryProblem(header: Headers, seen: Map<string, UnpackedEntry>): Error | null {
  if (header.type !== 'file')
    return refuse(
      'backup_corrupted',
      `the bundle holds a ${header.type} entry "${header.name}"; a bundle holds only files`,
    );
  if (!isBundleEntry(header.name))
    return refuse('backup_corrupted', `the bundle holds "${header.name}", which no Raincheck bundle holds`);
  if (seen.has(header.name)) return refuse('backup_corrupted', `the bundle holds "${header.name}" twice`);
  return null;
}

/** gzip and tar failures: an early end is a truncated upload, anything else a corrupted one. */
function classify(err: unknown): Error {
  if ((err as { status?: unknown }).status !== undefined) return err as Error;
  const code = (err as { code?: unknown }).code;
  const message = err instanceof Error ? err.message : String(err);
  if (code === 'Z_BUF_ERROR' || /unexpected end|premature close/i.test(message)) {
    return refuse(
      'backup_truncated',
      'the bundle ends early: it was cut short (an interrupted download or upload)',
    );
  }
  return refuse('backup_corrupted', `the bundle is not a readable tar.gz: ${message}`);
}
