import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { Readable } from 'node:stream';
import * as tar from 'tar-stream';

/** Reading and rewriting backup bundles in tests. */

export interface BundleEntry {
  name: string;
  bytes: Buffer;
}

export async function readBundle(bundle: Buffer): Promise<BundleEntry[]> {
  const extract = tar.extract();
  const entries: BundleEntry[] = [];
  const done = new Promise<void>((resolve, reject) => {
    extract.on('entry', (header, stream, next) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: unknown) => chunks.push(chunk as Buffer));
      stream.on('end', () => {
        entries.push({ name: header.name, bytes: Buffer.concat(chunks) });
        next();
      });
    });
    extract.on('finish', () => resolve());
    extract.on('error', reject);
  });
  Readable.from([gunzipSync(bundle)]).pipe(extract);
  await done;
  return entries;
}

export async function writeBundle(entries: BundleEntry[]): Promise<Buffer> {
  const pack = tar.pack();
  const chunks: Buffer[] = [];
  pack.on('data', (chunk: unknown) => chunks.push(chunk as Buffer));
  const ended = new Promise<void>((resolve) => pack.on('end', () => resolve()));
  for (const entry of entries) pack.entry({ name: entry.name }, entry.bytes);
  pack.finalize();
  await ended;
  return gzipSync(Buffer.concat(chunks));
}

export function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** Replaces one entry's bytes; with `fixManifest` the manifest is updated to match. */
export function replaceEntry(
  entries: BundleEntry[],
  name: string,
  bytes: Buffer,
  fixManifest: boolean,
): BundleEntry[] {
  const next = entries.map((e) => (e.name === name ? { name, bytes } : e));
  if (!fixManifest) return next;
  return next.map((e) => {
    if (e.name !== 'manifest.json') return e;
    const manifest = JSON.parse(e.bytes.toString('utf8')) as {
      files: { path: string; bytes: number; sha256: string }[];
    };
    for (const file of manifest.files) {
      if (file.path === name) Object.assign(file, { bytes: bytes.length, sha256: sha256(bytes) });
    }
    return { name: e.name, bytes: Buffer.from(JSON.stringify(manifest)) };
  });
}
