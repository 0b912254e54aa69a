import type { FastifyInstance } from 'fastify';
import type { PhotoStore } from '../../photos/store';
import type { DomainRoutes, HttpDeps } from '../deps';

/**
 * POST /zones/photo (spec 4.8, limits in spec 8): one multipart file in the
 * field `file`, a JPEG, PNG, GIF or WebP of at most 10 MB, decided by its
 * bytes (photos/sniff.ts). Answers 201 `{url, filename}`: `url` is relative
 * (`site/photos/<name>`, no leading slash) so a page under HA's ingress prefix
 * resolves it below that prefix; `filename` is the stored name. Privileged:
 * it writes files under the data directory.
 *
 * Only this route's scope accepts multipart bodies; its parser leaves the
 * body unread (so the 1 MB JSON body limit does not apply) and
 * photos/upload.ts, loaded on the first upload, parses it with
 * @fastify/multipart under the 10 MB file limit.
 */

type UploadModule = typeof import('../../photos/upload');

export function zonesRoutes(deps: HttpDeps): DomainRoutes {
  let upload: { module: UploadModule; photos: PhotoStore } | null = null;
  const load = () => {
    /* eslint-disable @typescript-eslint/no-require-imports */
    const module = require('../../photos/upload') as UploadModule;
    const { PhotoStore } = require('../../photos/store') as typeof import('../../photos/store');
    /* eslint-enable @typescript-eslint/no-require-imports */
    return { module, photos: new PhotoStore(deps.env.dataDir) };
  };
  const uploadScope = async (scope: FastifyInstance): Promise<void> => {
    scope.addContentTypeParser('multipart/form-data', (_request, _payload, done) => done(null));
    scope.post('/zones/photo', { preHandler: deps.privileged }, async (request, reply) => {
      upload ??= load();
      return upload.module.handlePhotoUpload(upload.photos, deps.logger, request, reply);
    });
  };
  return {
    shared: (scope) => {
      void scope.register(uploadScope);
    },
  };
}
