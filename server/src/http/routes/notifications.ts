import { lazySchema } from '../../core/zod-lazy';
import { RoutingError, isChannelId } from '../../notify/routing';
import type { DomainRoutes, HttpDeps } from '../deps';
import { ApiError, badRequest } from '../errors';

/**
 * /notifications (the settings page's Notifications section; see
 * docs/notifications.md):
 *
 * - GET /notifications: channel states (configured, why not, queue, last
 *   delivery and failure), Web Push facts, the event catalog with each event's
 *   routing, and the last deliveries. No secret appears in it.
 * - PUT /notifications/routes: `{routes: {<event>: {<channel>: boolean}}}`,
 *   a partial update of which events go to which channel; answers the new
 *   status. Privileged (it decides who hears about a failure). 400
 *   `invalid_body` for an unknown event or channel, 503
 *   `database_unavailable` without the database.
 * - POST /notifications/test: `{channel?}` sends a test notice to that
 *   channel (or every configured one), one attempt straight to the channel,
 *   and answers each: `{results: [{channel, status, detail}]}`, status
 *   `sent`, `skipped` (Web Push with no device), `retry` (a failure a real
 *   notice would be retried after) or `failed`. 409 `channel_not_configured` when the channel (or every
 *   channel) is not configured.
 */

export const routesBody = lazySchema((z) =>
  z.object({ routes: z.record(z.string(), z.record(z.string(), z.boolean())) }),
);
export const testBody = lazySchema((z) => z.object({ channel: z.string().nullish() }));

export function notificationsRoutes(deps: HttpDeps): DomainRoutes {
  return {
    shared: (scope) => {
      scope.get('/notifications', async () => deps.notify.status());

      scope.put('/notifications/routes', { preHandler: deps.privileged }, async (request) => {
        const parsed = routesBody.safeParse(request.body ?? {});
        if (!parsed.success)
          throw badRequest('invalid_body', 'expected {routes: {<event>: {<channel>: boolean}}}');
        try {
          deps.notify.routing.update(parsed.data.routes);
        } catch (err) {
          if (!(err instanceof RoutingError)) throw err;
          if (!deps.notify.routing.persisted) throw new ApiError(503, 'database_unavailable', err.message);
          throw badRequest('invalid_body', err.message);
        }
        return deps.notify.status();
      });

      scope.post('/notifications/test', async (request) => {
        const parsed = testBody.safeParse(request.body ?? {});
        if (!parsed.success) throw badRequest('invalid_body', 'expected {channel?: string}');
        const channel = parsed.data.channel ?? null;
        if (channel !== null && !isChannelId(channel))
          throw badRequest('invalid_body', `unknown channel "${channel}"`);
        const results = await deps.notify.sendTest(channel);
        if (results.length === 0) {
          throw new ApiError(
            409,
            'channel_not_configured',
            channel ? `the ${channel} channel is not configured` : 'no notification channel is configured',
          );
        }
        return { results };
      });
    },
  };
}
