import { parse as parseCookies } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { BlockList } from 'node:net';
import type { RaincheckConfig } from '../config/schema';
import { ApiError } from '../http/errors';
import type { AuthService, Identity } from './auth-service';
import type { StreamGuard } from '../http/sse';
import { buildBlockList, inList, normalizeAddress, resolveClientAddress } from './network';
import { apiPath, isPublicPath } from './public-paths';
import { refuseForeignRequest } from './request-origin';
import { returnPathOf, returnToCookie } from './return-to';

/**
 * Who is asking (spec 5.2-5.7), worked out once per request: the credential
 * presented, in the spec's order (bearer token; `access_token` only on paths
 * ending in `/stream`; the `service_session` cookie), the client address
 * (X-Forwarded-For believed only from trusted proxies), the trusted-network
 * bypass and the proxy identity header. The gate refuses what needs
 * credentials when auth is required: 302 to /login for an HTML GET, else 401
 * with `WWW-Authenticate`. In both modes it refuses cross-site writes and
 * writes to a host name this install does not answer to (request-origin.ts).
 */

export const SESSION_COOKIE = 'service_session';
export const REALM = 'Bearer realm="raincheck"';

/** The auth config as enforced: the add-on's ingress proxy added, the mode settled. */
export interface AuthPolicy {
  mode: 'disabled' | 'required';
  session_ttl_days: number;
  trusted_networks: string[];
  trusted_proxies: string[];
  proxy_auth_header: string | null;
  proxy_auth_allow: string[];
  proxies: BlockList;
  networks: BlockList;
  /** Host names a browser may send writes to (request-origin.ts): `auth.allowed_hosts` and this host's names. */
  allowedHosts: string[];
}

/** Home Assistant's ingress proxy inside the supervisor network. */
export const HA_INGRESS_PROXY = '172.30.32.2';
export const HA_INGRESS_USER_HEADER = 'X-Remote-User-Id';

export function buildPolicy(
  auth: RaincheckConfig['auth'],
  options: {
    addon: boolean;
    requireWithoutConfig: boolean;
    configPresent: boolean;
    /** This machine's own names (request-origin.ts ownHostNames). */
    ownHostNames?: readonly string[];
  },
): AuthPolicy {
  const proxies = options.addon
    ? [...new Set([...auth.trusted_proxies, `${HA_INGRESS_PROXY}/32`])]
    : auth.trusted_proxies;
  const header = auth.proxy_auth_header ?? (options.addon ? HA_INGRESS_USER_HEADER : null);
  // An owner account made before any config exists (the wizard's first step) must not leave the door open.
  const mode = !options.configPresent && options.requireWithoutConfig ? 'required' : auth.mode;
  return {
    mode,
    session_ttl_days: auth.session_ttl_days,
    trusted_networks: auth.trusted_networks,
    trusted_proxies: proxies,
    proxy_auth_header: header,
    proxy_auth_allow: auth.proxy_auth_allow,
    proxies: buildBlockList(proxies),
    networks: buildBlockList(auth.trusted_networks),
    allowedHosts: [
      ...new Set([...auth.allowed_hosts.map((name) => name.toLowerCase()), ...(options.ownHostNames ?? [])]),
    ],
  };
}

export interface RequestAuth {
  identity: Identity | null;
  /** A credential was presented (valid or not). */
  presented: boolean;
  /** The derived client address. */
  client: string;
  trustedNetwork: boolean;
  /** The proxy identity header's value from a trusted proxy (e.g. the HA user id), else null. */
  proxyUser: string | null;
  /** The direct peer is a trusted proxy. */
  viaTrustedProxy: boolean;
}

const CONTEXT = Symbol('raincheck.auth');
type WithContext = FastifyRequest & { [CONTEXT]?: RequestAuth };

export class RequestAuthenticator {
  constructor(
    private readonly auth: AuthService,
    private readonly policy: () => AuthPolicy,
  ) {}

  /** Resolved once per request, on first use. */
  of(request: FastifyRequest): RequestAuth {
    const holder = request as WithContext;
    return (holder[CONTEXT] ??= this.resolve(request, this.policy()));
  }

  /** Signed in, or exempt: a valid credential, a trusted network, or a trusted proxy's identity. */
  isAuthenticated(request: FastifyRequest): boolean {
    if (this.policy().mode === 'disabled') return true;
    const ctx = this.of(request);
    return ctx.identity !== null || ctx.trustedNetwork || ctx.proxyUser !== null;
  }

  /** A real credential (session or API token) was presented and is valid. */
  hasCredential(request: FastifyRequest): boolean {
    return this.of(request).identity !== null;
  }

  /**
   * For a stream the auth gate let through on a credential: a check that stays
   * true while that credential is valid. Null when access does not rest on a
   * credential (auth disabled, a trusted network, a proxy identity).
   */
  streamGuard(request: FastifyRequest): StreamGuard | null {
    if (this.policy().mode === 'disabled') return null;
    const { identity, trustedNetwork, proxyUser } = this.of(request);
    if (!identity || trustedNetwork || proxyUser !== null) return null;
    return () => this.auth.stillValid(identity);
  }

  /** The fastify onRequest hook. */
  gate = async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const policy = this.policy();
    refuseForeignRequest(request, policy);
    if (policy.mode === 'disabled') return;
    // Resolved on public paths too: /health and /auth/status answer by it, and a presented
    // credential costs the same wherever it is sent.
    const authenticated = this.isAuthenticated(request);
    const path = request.url.split('?', 1)[0] ?? '/';
    if (authenticated || isPublicPath(path, this.auth.setupComplete())) return;
    if (request.method === 'GET' && apiPath(path) === null && acceptsHtml(request)) {
      const page = returnPathOf(path);
      if (page !== null) reply.header('Set-Cookie', returnToCookie(page, this.isHttps(request)));
      await reply.redirect(`${this.ingressPrefix(request)}/login`, 302);
      return;
    }
    reply.header('WWW-Authenticate', REALM);
    throw new ApiError(401, 'unauthorized', 'unauthorized');
  };

  /**
   * `X-Ingress-Path` from a trusted proxy (HA ingress): where the app lives.
   * Only a path prefix is taken (`/api/hassio_ingress/<token>`): segments of
   * letters, digits and `_ . -`, never empty, `.` or `..`, so a value like
   * `//evil.example` cannot turn the login redirect into one to another site.
   */
  ingressPrefix(request: FastifyRequest): string {
    const value = request.headers['x-ingress-path'];
    if (typeof value !== 'string' || !this.of(request).viaTrustedProxy) return '';
    return isPathPrefix(value) ? value.replace(/\/$/, '') : '';
  }

  /** The request arrived over HTTPS (told by a trusted proxy). */
  isHttps(request: FastifyRequest): boolean {
    const proto = request.headers['x-forwarded-proto'];
    return (
      typeof proto === 'string' && proto.split(',')[0]?.trim() === 'https' && this.of(request).viaTrustedProxy
    );
  }

  private resolve(request: FastifyRequest, policy: AuthPolicy): RequestAuth {
    const peer = normalizeAddress(request.raw.socket.remoteAddress ?? '');
    const viaTrustedProxy = inList(policy.proxies, peer);
    const forwardedFor = request.headers['x-forwarded-for'];
    const client = resolveClientAddress(
      peer,
      typeof forwardedFor === 'string' ? forwardedFor : undefined,
      policy.proxies,
    );
    const credential = presentedCredential(request);
    let identity: Identity | null = null;
    if (credential) {
      identity =
        credential.kind === 'cookie'
          ? this.auth.session(credential.secret)
          : this.auth.token(credential.secret);
    }
    return {
      identity,
      presented: credential !== null,
      client,
      trustedNetwork: inList(policy.networks, client),
      proxyUser: viaTrustedProxy ? proxyUser(request, policy) : null,
      viaTrustedProxy,
    };
  }
}

type Credential = { kind: 'bearer' | 'query' | 'cookie'; secret: string };

/**
 * The first credential in the spec's order. A Bearer header decides even when
 * its token is bad (no falling back to a cookie); another scheme (Basic from a
 * reverse proxy that does its own login) is not ours and is passed over.
 */
export function presentedCredential(request: FastifyRequest): Credential | null {
  const authorization = request.headers.authorization;
  if (authorization !== undefined && /^Bearer(\s|$)/i.test(authorization)) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    return { kind: 'bearer', secret: match?.[1] ?? '' };
  }
  const [path, query] = request.url.split('?', 2);
  if (path?.endsWith('/stream') && query) {
    const token = new URLSearchParams(query).get('access_token');
    if (token) return { kind: 'query', secret: token };
  }
  const cookies = request.headers.cookie;
  if (cookies) {
    const session = parseCookies(cookies)[SESSION_COOKIE];
    if (session) return { kind: 'cookie', secret: session };
  }
  return null;
}

function proxyUser(request: FastifyRequest, policy: AuthPolicy): string | null {
  const name = policy.proxy_auth_header?.toLowerCase();
  if (!name) return null;
  const raw = request.headers[name];
  const value = (Array.isArray(raw) ? raw[0] : raw)?.trim();
  if (!value) return null;
  const allow = policy.proxy_auth_allow;
  return allow.length === 0 || allow.some((entry) => entry.toLowerCase() === value.toLowerCase())
    ? value
    : null;
}

function acceptsHtml(request: FastifyRequest): boolean {
  const accept = request.headers.accept;
  return typeof accept === 'string' && accept.includes('text/html');
}

const PATH_PREFIX = /^(?:\/[A-Za-z0-9_.-]+)+\/?$/;

function isPathPrefix(value: string): boolean {
  return PATH_PREFIX.test(value) && !value.split('/').some((segment) => segment === '.' || segment === '..');
}
