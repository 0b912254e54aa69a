import { readFile } from 'node:fs/promises';
import { SERVICE_VERSION } from '../../core/version';
import { assetFile, WEB_ICONS } from '../../web/assets';
import type { DomainRoutes } from '../deps';
import { ApiError } from '../errors';

/**
 * The PWA's public files at the origin root (spec 4.1, 5.5): the manifest,
 * the service worker and the icons. Served at the root (the worker's scope is
 * the directory it is served from: the whole app, also under HA's ingress
 * prefix, so no Service-Worker-Allowed header is needed). The manifest and
 * worker modules load on their first request.
 */

type ManifestModule = typeof import('../../web/manifest');
type WorkerModule = typeof import('../../web/service-worker');

export function pwaRoutes(): DomainRoutes {
  let sw: string | null = null;
  return {
    root: (scope) => {
      scope.get('/manifest.webmanifest', async (_request, reply) => {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const manifest = require('../../web/manifest') as ManifestModule;
        return reply
          .type(manifest.MANIFEST_CONTENT_TYPE)
          .header('Cache-Control', 'no-cache')
          .send(JSON.stringify(manifest.webManifest()));
      });

      scope.get('/sw.js', async (_request, reply) => {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const worker = require('../../web/service-worker') as WorkerModule;
        sw ??= worker.serviceWorkerSource(SERVICE_VERSION);
        return reply.type(worker.SW_CONTENT_TYPE).header('Cache-Control', 'no-cache').send(sw);
      });

      for (const icon of WEB_ICONS) {
        scope.get(`/${icon.path}`, async (_request, reply) => {
          const file = assetFile(icon.file);
          if (!file) throw new ApiError(404, 'not_found', `this install has no ${icon.path}`);
          return reply
            .type(icon.contentType)
            .header('Cache-Control', 'public, max-age=86400')
            .header('X-Content-Type-Options', 'nosniff')
            .send(await readFile(file));
        });
      }
    },
  };
}
