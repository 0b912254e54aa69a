import rateLimit from '@fastify/rate-limit';
import { serialize } from 'cookie';
import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import { lazySchema } from '../../core/zod-lazy';
import { AuthError, type AuthService, type Identity } from '../../auth/auth-service';
import { requireSetupAccess } from '../../auth/privileged';
import { REALM, SESSION_COOKIE, type AuthPolicy, type RequestAuthenticator } from '../../auth/request-auth';
import { ConfigRejected, type ConfigService } from '../../config/config-service';
import type { Logger } from '../../core/logger';
import type { DomainRoutes } from '../deps';
import { ApiError, badRequest } from '../errors';

/**
 * /auth/* (spec 4.9): status, owner setup, login, logout, session and API
 * tokens. Setup and login share one limiter: 10 attempts per minute per
 * client address (the derived one, so a trusted proxy's clients are told
 * apart). Token administration needs a signed-in owner session, in either
 * mode: network position and proxy identity are not enough.
 */

export interface AuthRouteDeps {
  auth: AuthService;
  authenticator: RequestAuthenticator;
  policy: () => AuthPolicy;
  config: ConfigService;
  logger: Logger;
}

export const LOGIN_ATTEMPTS_PER_MINUTE = 10;

export const credentialsBody = lazySchema((z) =>
  z.object({ username: z.string().max(64), password: z.string().max(4096) }),
);
export const tokenBody = lazySchema((z) => z.object({ name: z.string() }));

export function authRoutes(deps: AuthRouteDeps): DomainRoutes {
  const setupAccess = requireSetupAccess(deps.policy);
  let limiter: preHandlerAsyncHookHandler | null = null;
  let root: FastifyInstance | null = null;
  // One limiter for setup and login under both prefixes (built once the plugin is loaded).
  const limit: preHandlerAsyncHookHandler = async function (request, reply) {
    limiter ??= (root as FastifyInstance).rateLimit({
      max: LOGIN_ATTEMPTS_PER_MINUTE,
      timeWindow: 60_000,
    }) as unknown as preHandlerAsyncHookHandler;
    return limiter.call(this, request, reply);
  };
  return {
    root: (app) => {
      root = app;
      void app.register(rateLimit, {
        global: false,
        keyGenerator: (request) => deps.authenticator.of(request).client,
        errorResponseBuilder: (_request, context) =>
          new ApiError(
            429,
            'rate_limited',
            `too many attempts: try again in ${Math.ceil(context.ttl / 1000)} s`,
          ),
      });
    },
    shared: (scope) => {
      scope.get('/auth/status', async (request) => ({
        mode: deps.policy().mode,
        setup_complete: deps.auth.setupComplete(),
        authenticated: deps.authenticator.isAuthenticated(request),
      }));

      scope.post('/auth/setup', { preHandler: [setupAccess, limit] }, async (request, reply) => {
        const { username, password } = credentials(request.body);
        const account = await run(() => deps.auth.setup(username, password));
        let session: { secret: string; identity: Identity };
        try {
          await requireAuthInConfig(deps);
          session = await run(() => deps.auth.login(username, password));
        } catch (err) {
          // All of setup or none of it: no owner left behind on an instance that stayed open.
          deps.auth.undoSetup(account.id);
          throw err;
        }
        setSessionCookie(deps, request, reply, session.secret, session.identity);
        return reply.status(201).send({ ok: true, username: account.username, mode: deps.policy().mode });
      });

      scope.post('/auth/login', { preHandler: limit }, async (request, reply) => {
        const { username, password } = credentials(request.body);
        const { secret, identity } = await run(() => deps.auth.login(username, password));
        setSessionCookie(deps, request, reply, secret, identity);
        return {
          ok: true,
          username,
          expires_epoch: identity.kind === 'session' ? identity.expires_epoch : null,
        };
      });

      scope.post('/auth/logout', async (request, reply) => {
        const identity = deps.authenticator.of(request).identity;
        if (identity) deps.auth.logout(identity);
        reply.header(
          'Set-Cookie',
          serialize(SESSION_COOKIE, '', { ...cookieFlags(deps, request), maxAge: 0 }),
        );
        return { ok: true };
      });

      scope.get('/auth/session', async (request, reply) => {
        const ctx = deps.authenticator.of(request);
        const identity = ctx.identity;
        if (!identity && deps.policy().mode === 'required' && !deps.authenticator.isAuthenticated(request)) {
          reply.header('WWW-Authenticate', 'Bearer realm="raincheck"');
          throw new ApiError(401, 'unauthorized', 'unauthorized');
        }
        return describe(identity, ctx.proxyUser, ctx.trustedNetwork, deps.policy().mode === 'disabled');
      });

      scope.get('/auth/tokens', async (request, reply) => {
        requireOwnerSession(deps, request, reply);
        return { tokens: deps.auth.listTokens() };
      });

      scope.post('/auth/tokens', async (request, reply) => {
        requireOwnerSession(deps, request, reply);
        const parsed = tokenBody.safeParse(request.body ?? {});
        if (!parsed.success) throw badRequest('invalid_body', 'expected {name: string}');
        const { token, record } = await run(async () => deps.auth.createToken(parsed.data.name));
        // Shown exactly once: never logged, never stored in plaintext, never served again.
        return reply
          .status(201)
          .header('Cache-Control', 'no-store')
          .send({ token, ...record });
      });

      scope.delete<{ Params: { id: string } }>('/auth/tokens/:id', async (request, reply) => {
        requireOwnerSession(deps, request, reply);
        const id = Number(request.params.id);
        if (!Number.isSafeInteger(id) || id <= 0)
          throw badRequest('invalid_token_id', 'the token id is a positive integer');
        if (!deps.auth.revokeToken(id)) throw new ApiError(404, 'token_unknown', `no token with id ${id}`);
        return { ok: true, revoked: id };
      });
    },
  };
}

function credentials(body: unknown): { username: string; password: string } {
  const parsed = credentialsBody.safeParse(body ?? {});
  if (!parsed.success) throw badRequest('invalid_body', 'expected {username: string, password: string}');
  return parsed.data;
}

async function run<T>(action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (err) {
    if (err instanceof AuthError) throw new ApiError(err.status, err.code, err.message);
    throw err;
  }
}

/**
 * The wizard's owner setup switches the instance to auth required (spec 5.1).
 * A save that fails (a full disk) fails the setup: an owner on an instance
 * that stayed open would be a setup reported that never took effect.
 */
async function requireAuthInConfig(deps: AuthRouteDeps): Promise<void> {
  const current = deps.config.current;
  if (!current || current.config.auth.mode === 'required') return;
  const doc = deps.config.publicDocument();
  doc.auth = { ...((doc.auth as Record<string, never> | undefined) ?? {}), mode: 'required' };
  try {
    await deps.config.save(doc, { note: 'owner account created: auth required' });
  } catch (err) {
    deps.logger.child({ module: 'auth' }).error({ err }, 'could not switch auth.mode to required');
    // The stored config does not validate any more (an environment variable it names went away).
    if (err instanceof ConfigRejected) {
      throw new ApiError(
        422,
        err.code,
        `the config could not be switched to auth required: ${err.message}`,
        err.details,
      );
    }
    throw err;
  }
}

function requireOwnerSession(deps: AuthRouteDeps, request: FastifyRequest, reply: FastifyReply): void {
  if (!deps.auth.setupComplete()) {
    throw new ApiError(
      403,
      'setup_required',
      'create the owner account first: tokens belong to a signed-in owner',
    );
  }
  if (deps.authenticator.of(request).identity?.kind !== 'session') {
    // Every 401 carries the Bearer challenge (spec 5.4, 7), also in disabled mode where the gate is off.
    reply.header('WWW-Authenticate', REALM);
    throw new ApiError(401, 'unauthorized', 'unauthorized', {
      hint: 'token administration needs a signed-in owner session',
    });
  }
}

function cookieFlags(deps: AuthRouteDeps, request: FastifyRequest) {
  return {
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: deps.authenticator.isHttps(request),
    path: '/',
  };
}

function setSessionCookie(
  deps: AuthRouteDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  secret: string,
  identity: Identity,
): void {
  const maxAge = identity.kind === 'session' ? deps.policy().session_ttl_days * 86400 : undefined;
  reply.header(
    'Set-Cookie',
    serialize(SESSION_COOKIE, secret, { ...cookieFlags(deps, request), ...(maxAge ? { maxAge } : {}) }),
  );
}

/**
 * Who the caller is, answering the same question as /auth/status's
 * `authenticated` (the gate's view: signed in, exempt, or sign-in off): the
 * strongest reason wins, and with sign-in off an anonymous caller is
 * `{authenticated: true, via: 'auth_disabled'}` (every endpoint is open to it,
 * spec 5.1), never a `false` that /auth/status contradicts.
 */
function describe(
  identity: Identity | null,
  proxyUser: string | null,
  trustedNetwork: boolean,
  authDisabled: boolean,
): Record<string, unknown> {
  if (identity?.kind === 'session') {
    return {
      authenticated: true,
      via: 'session',
      username: identity.username,
      expires_epoch: identity.expires_epoch,
    };
  }
  if (identity?.kind === 'token') return { authenticated: true, via: 'token', token_name: identity.name };
  if (proxyUser) return { authenticated: true, via: 'proxy', proxy_user: proxyUser };
  if (trustedNetwork) return { authenticated: true, via: 'trusted_network' };
  if (authDisabled) return { authenticated: true, via: 'auth_disabled' };
  return { authenticated: false, via: null };
}
