import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../core/atomic-write';
import { PHOTO_CONTENT_TYPES, type PhotoType } from './sniff';

/**
 * Zone photos on disk: `<dataDir>/photos/<32 random hex>.<jpg|png|gif|webp>`,
 * written atomically (a crash leaves no torn photo under a served name; the
 * temp file beside it never matches PHOTO_NAME). Names come from here only:
 * a client's filename never reaches the file system, and a served name must
 * match PHOTO_NAME exactly, so no path (`..`, `/`, `%2f`) can be expressed.
 */

export const PHOTO_DIR = 'photos';
export const PHOTO_NAME = /^[a-f0-9]{32}\.(jpg|png|gif|webp)$/;

export interface StoredPhoto {
  name: string;
  path: string;
}

export class PhotoStore {
  readonly dir: string;

  constructor(dataDir: string) {
    this.dir = join(dataDir, PHOTO_DIR);
  }

  save(bytes: Uint8Array, type: PhotoType): StoredPhoto {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    const name = `${randomBytes(16).toString('hex')}.${type}`;
    const path = join(this.dir, name);
    writeFileAtomic(path, bytes);
    return { name, path };
  }

  /** The file and content type for a served name; null for anything that is not a photo name. */
  locate(name: string): { path: string; contentType: string } | null {
    const match = PHOTO_NAME.exec(name);
    if (!match) return null;
    return { path: join(this.dir, name), contentType: PHOTO_CONTENT_TYPES[match[1] as PhotoType] };
  }
}
