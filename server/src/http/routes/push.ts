import { lazySchema } from '../../core/zod-lazy';
import { epochSeconds } from '../../core/clock';
import type { DomainRoutes, HttpDeps } from '../deps';
import { ApiError, badRequest } from '../errors';

/**
 * /push/* (spec 4.8): the VAPID public key a browser subscribes with, and the
 * subscriptions themselves (stored in the database, one per endpoint).
 *
 * - GET /push/vapid-key: `{public_key}`; 503 `{error: 'vapid not configured'}`
 *   (code `vapid_not_configured`) when no keypair is loaded, which includes
 *   `features.enable_push = false`.
 * - POST /push/subscribe: the browser's PushSubscription JSON; an idempotent
 *   upsert by endpoint, `{ok: true}`. The endpoint must be an https URL and
 *   the keys a P-256 point and a 16-byte secret (400 `invalid_body`).
 * - POST /push/unsubscribe: `{endpoint}` -> `{ok: true, removed}`.
 * Both writes answer 503 `database_unavailable` when the database could not
 * be opened. They need credentials (not public), not the privileged policy:
 * any signed-in device may ask to be told.
 */

export const subscribeBody = lazySchema((z) =>
  z.object({
    endpoint: z.string().max(2048),
    expirationTime: z.number().nullish(),
    keys: z.object({ p256dh: z.string().max(256), auth: z.string().max(64) }),
  }),
);
export const unsubscribeBody = lazySchema((z) => z.object({ endpoint: z.string().max(2048) }));

export function pushRoutes(deps: HttpDeps): DomainRoutes {
  const subscriptions = () => {
    if (!deps.store) {
      throw new ApiError(
        503,
        'database_unavailable',
        'the database is unavailable: subscriptions cannot be kept',
      );
    }
    return deps.store.pushSubscriptions;
  };
  return {
    shared: (scope) => {
      scope.get('/push/vapid-key', async () => {
        const key = deps.notify.vapidPublicKey();
        if (!key) throw new ApiError(503, 'vapid_not_configured', 'vapid not configured');
        return { public_key: key };
      });

      scope.post('/push/subscribe', async (request) => {
        const parsed = subscribeBody.safeParse(request.body ?? {});
        if (!parsed.success) throw invalid('expected a PushSubscription {endpoint, keys: {p256dh, auth}}');
        const { endpoint, keys } = parsed.data;
        checkSubscription(endpoint, keys.p256dh, keys.auth);
        subscriptions().upsert({
          endpoint,
          p256dh: keys.p256dh,
          auth: keys.auth,
          created_epoch: epochSeconds(deps.clock),
        });
        return { ok: true };
      });

      scope.post('/push/unsubscribe', async (request) => {
        const parsed = unsubscribeBody.safeParse(request.body ?? {});
        if (!parsed.success) throw invalid('expected {endpoint}');
        return { ok: true, removed: subscriptions().remove(parsed.data.endpoint) };
      });
    },
  };
}

function invalid(message: string): ApiError {
  return badRequest('invalid_body', message);
}

/** What a browser's PushManager gives: an https endpoint, a P-256 public point (65 bytes) and a 16-byte secret. */
function checkSubscription(endpoint: string, p256dh: string, auth: string): void {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw invalid('endpoint must be an https URL');
  }
  if (url.protocol !== 'https:' || url.username || url.password)
    throw invalid('endpoint must be an https URL');
  const key = base64url(p256dh);
  if (!key || key.length !== 65 || key[0] !== 0x04) {
    throw invalid('keys.p256dh must be an uncompressed P-256 public key, base64url');
  }
  if (base64url(auth)?.length !== 16) throw invalid('keys.auth must be 16 bytes, base64url');
}

function base64url(text: string): Buffer | null {
  const bare = text.replace(/=+$/, '');
  return /^[A-Za-z0-9_-]+$/.test(bare) ? Buffer.from(bare, 'base64url') : null;
}
