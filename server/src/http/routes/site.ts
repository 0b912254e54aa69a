import { open, type FileHandle } from 'node:fs/promises';
import type { PhotoStore } from '../../photos/store';
import type { DomainRoutes, HttpDeps } from '../deps';
import { ApiError } from '../errors';

/**
 * GET /site/photos/{name} at the origin root: the zone photos POST
 * /zones/photo stored. Not public (spec 5.5): the auth gate asks for
 * credentials when auth is required. Only names the store issues are served
 * (PHOTO_NAME), so nothing outside the photo directory can be named. The
 * content type comes from the stored extension (itself from the sniffed
 * bytes), with nosniff and a CSP that lets nothing run should a browser open
 * the photo as a document.
 */

export const PHOTO_CACHE_CONTROL = 'private, max-age=86400';

function photoNotFound(): ApiError {
  return new ApiError(404, 'photo_not_found', 'no such photo');
}

export function siteRoutes(deps: HttpDeps): DomainRoutes {
  let photos: PhotoStore | null = null;
  // The store module loads on the first photo request.
  const store = (): PhotoStore =>
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    (photos ??= new (require('../../photos/store') as typeof import('../../photos/store')).PhotoStore(
      deps.env.dataDir,
    ));
  return {
    root: (scope) => {
      scope.get<{ Params: { name: string } }>('/site/photos/:name', async (request, reply) => {
        const found = store().locate(request.params.name);
        if (!found) throw photoNotFound();
        let handle: FileHandle;
        try {
          handle = await open(found.path, 'r');
        } catch (err) {
          if (['ENOENT', 'ENOTDIR', 'EISDIR'].includes((err as NodeJS.ErrnoException).code ?? '')) {
            throw photoNotFound();
          }
          throw err;
        }
        const stat = await handle.stat().catch(async (err: unknown) => {
          await handle.close();
          throw err;
        });
        if (!stat.isFile()) {
          await handle.close();
          throw photoNotFound();
        }
        return reply
          .type(found.contentType)
          .header('Content-Length', stat.size)
          .header('X-Content-Type-Options', 'nosniff')
          .header('Cache-Control', PHOTO_CACHE_CONTROL)
          .header('Content-Security-Policy', "default-src 'none'; sandbox")
          .send(handle.createReadStream());
      });
    },
  };
}
