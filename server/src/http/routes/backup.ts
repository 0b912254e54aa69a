import type { FastifyInstance } from 'fastify';
import type { RestoreService } from '../../ops/restore/restore-service';
import type { DomainRoutes, HttpDeps } from '../deps';
import { ApiError } from '../errors';
import { queryFlag } from '../query';

/**
 * GET /backup and POST /backup/restore (spec 4.8, v1-only, privileged; the
 * bundle and the answer are in docs/operations.md). GET /backup/snapshots
 * lives with the config routes (routes/config.ts), whose list it is.
 *
 * The backup writer, tar and the restore machinery load on first use. The
 * restore route's scope alone accepts multipart bodies; its parser leaves
 * the body unread (no 1 MB JSON limit) and the restore streams it to disk.
 */

type BackupModule = typeof import('../../ops/backup/create-backup');
type RestoreModule = typeof import('../../ops/restore/restore-service');

export function backupRoutes(deps: HttpDeps): DomainRoutes {
  let restore: RestoreService | null = null;
  const restoreService = (): RestoreService => {
    if (restore) return restore;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const module = require('../../ops/restore/restore-service') as RestoreModule;
    restore = new module.RestoreService({
      dataDir: deps.env.dataDir,
      config: deps.config,
      store: deps.store,
      clock: deps.clock,
      logger: deps.logger,
      metrics: deps.metrics,
      maxUploadBytes: deps.restoreLimits?.maxUploadBytes ?? module.RESTORE_MAX_UPLOAD_BYTES,
      maxUnpackedBytes: deps.restoreLimits?.maxUnpackedBytes ?? module.RESTORE_MAX_UNPACKED_BYTES,
    });
    return restore;
  };
  const restoreScope = async (scope: FastifyInstance): Promise<void> => {
    scope.addContentTypeParser('multipart/form-data', (_request, _payload, done) => done(null));
    scope.post('/backup/restore', { preHandler: deps.privileged }, async (request) =>
      restoreService().restore(request, queryFlag(request, 'dry_run')),
    );
  };
  return {
    v1Only: (scope) => {
      scope.get('/backup', { preHandler: deps.privileged }, async (_request, reply) => {
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const { createBackup } = require('../../ops/backup/create-backup') as BackupModule;
        const stream = await createBackup({
          dataDir: deps.env.dataDir,
          configPath: deps.env.configPath,
          db: deps.store?.db ?? null,
          clock: deps.clock,
          logger: deps.logger,
          env: deps.env.vars,
        }).catch((err: unknown) => {
          deps.logger.child({ module: 'backup' }).error({ err }, 'the database copy failed');
          throw new ApiError(500, 'backup_failed', 'the database could not be copied; the log says why');
        });
        const stamp = new Date(deps.clock.nowMs()).toISOString().slice(0, 19).replace(/[:T]/g, '-');
        return reply
          .type('application/gzip')
          .header('Content-Disposition', `attachment; filename="raincheck-backup-${stamp}.tar.gz"`)
          .header('Cache-Control', 'no-store')
          .send(stream);
      });
      void scope.register(restoreScope);
    },
  };
}
