import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Static files of the web app that live in the repository, not in the
 * compiled code: `icon.png` at the repository root (also the add-on's icon)
 * and the larger icons in `web/`. Found from server/src/web (ts-jest) and
 * from dist/server/src/web (built; the image copies icon.png and web/ beside dist/).
 */

export interface WebAsset {
  /** The single-segment path it is served at, relative to the origin root. */
  path: string;
  /** Relative to the repository root. */
  file: string;
  contentType: string;
  /** `WxH`, as the manifest states it. */
  sizes: string;
}

export const WEB_ICONS: readonly WebAsset[] = [
  { path: 'icon.png', file: 'icon.png', contentType: 'image/png', sizes: '128x128' },
  { path: 'icon-192.png', file: 'web/icon-192.png', contentType: 'image/png', sizes: '192x192' },
  { path: 'icon-512.png', file: 'web/icon-512.png', contentType: 'image/png', sizes: '512x512' },
];

const ROOT_CANDIDATES = ['../../..', '../../../..'];

/** The absolute path of a repository file, or null when this install does not have it. */
export function assetFile(file: string): string | null {
  for (const up of ROOT_CANDIDATES) {
    const candidate = join(__dirname, up, file);
    if (existsSync(candidate)) return candidate;
  }
  return null;
}
