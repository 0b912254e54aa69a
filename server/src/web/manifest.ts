import { assetFile, WEB_ICONS } from './assets';

/**
 * The PWA manifest (spec 4.1, public). Every URL in it is relative to the
 * manifest's own URL, so the app installs the same at the origin root and
 * under Home Assistant's ingress prefix. Only icons this install has are
 * listed, each with its true size.
 */

export const MANIFEST_CONTENT_TYPE = 'application/manifest+json; charset=utf-8';
export const THEME_COLOR = '#1e88d8';
export const BACKGROUND_COLOR = '#ffffff';

export function webManifest(): Record<string, unknown> {
  return {
    name: 'Raincheck',
    short_name: 'Raincheck',
    description: 'Weather-aware irrigation: should the sprinklers run today?',
    id: '.',
    start_url: '.',
    scope: '.',
    display: 'standalone',
    theme_color: THEME_COLOR,
    background_color: BACKGROUND_COLOR,
    icons: WEB_ICONS.filter((icon) => assetFile(icon.file) !== null).map((icon) => ({
      src: icon.path,
      sizes: icon.sizes,
      type: icon.contentType,
      purpose: 'any',
    })),
  };
}
