import type { FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
import type { BlockList } from 'node:net';
import type { RaincheckConfig } from '../config/schema';
import { ApiError } from '../http/errors';
import {
  buildBlockList,
  inList,
  isLocalNetwork,
  isLoopback,
  normalizeAddress,
  resolveClientAddress,
} from './network';

/**
 * The one policy for the privileged surface (spec 5.8): config writes, raw
 * config read, backup and restore, restart, wizard writes, tuning apply. Every
 * privileged route goes through `requirePrivileged`. The credential check of
 * required mode (sessions, API tokens) arrives with the auth issue through
 * `isAuthenticated`; until then only proxy identity and trusted networks pass.
 */

type AuthConfig = Pick<
  RaincheckConfig['auth'],
  'mode' | 'trusted_networks' | 'trusted_proxies' | 'proxy_auth_header' | 'proxy_auth_allow'
>;

export interface PrivilegeRequest {
  /** Raw TCP peer address. */
  peer: string;
  headers: Record<string, string | string[] | undefined>;
  auth: AuthConfig;
  /** A real credential (session cookie or API token) was presented and is valid. */
  authenticated: boolean;
}

export type PrivilegeDecision =
  | { allowed: true; via: 'proxy_identity' | 'credential' | 'trusted_network' | 'local_network' }
  | { allowed: false; status: 401 | 403; code: string; reason: string };

const FORWARDING_HEADERS = ['x-forwarded-for', 'forwarded', 'x-real-ip'];

export function decidePrivilege(input: PrivilegeRequest): PrivilegeDecision {
  const peer = normalizeAddress(input.peer);
  const proxies = buildBlockList(input.auth.trusted_proxies);
  if (hasProxyIdentity(input, peer, proxies)) return { allowed: true, via: 'proxy_identity' };
  if (input.authenticated) return { allowed: true, via: 'credential' };
  const trusted = trustedNetworkDecision(input, peer, proxies);
  if (trusted) return trusted;
  if (input.auth.mode === 'required')
    return unauthorized('this action needs a signed-in owner or an API token');
  return byNetworkPosition(input, peer, proxies, {
    relayed: unauthorized('the request came through a proxy that is not in auth.trusted_proxies; sign in'),
    public: forbidden(
      'privileged_public_client',
      'changes are refused from internet addresses while auth is disabled; enable auth to allow them',
    ),
  });
}

/**
 * Owner setup (POST /auth/setup) is reachable the way the privileged surface
 * is with auth disabled, in both modes: through the trusted proxy's identity,
 * from a trusted network, from loopback, or from a private or ULA address
 * (not behind an undeclared proxy). No credential can exist before the owner
 * does, so every refusal is 403 `setup_forbidden`: a stranger on the internet
 * cannot make himself the owner of an install that has none yet.
 */
export function decideSetupAccess(input: Omit<PrivilegeRequest, 'authenticated'>): PrivilegeDecision {
  const peer = normalizeAddress(input.peer);
  const proxies = buildBlockList(input.auth.trusted_proxies);
  if (hasProxyIdentity(input, peer, proxies)) return { allowed: true, via: 'proxy_identity' };
  return (
    trustedNetworkDecision(input, peer, proxies) ??
    byNetworkPosition(input, peer, proxies, {
      relayed: forbidden(
        'setup_forbidden',
        'the owner account cannot be created through a proxy that is not in auth.trusted_proxies',
      ),
      public: forbidden(
        'setup_forbidden',
        'the owner account can only be created from this machine, the local network or a trusted network',
      ),
    })
  );
}

function trustedNetworkDecision(
  input: Pick<PrivilegeRequest, 'headers' | 'auth'>,
  peer: string,
  proxies: BlockList,
): PrivilegeDecision | null {
  const client = resolveClientAddress(peer, header(input.headers, 'x-forwarded-for'), proxies);
  return inList(buildBlockList(input.auth.trusted_networks), client)
    ? { allowed: true, via: 'trusted_network' }
    : null;
}

/** Loopback and private or ULA clients pass; behind a proxy nobody declared only loopback does. */
function byNetworkPosition(
  input: Pick<PrivilegeRequest, 'headers' | 'auth'>,
  peer: string,
  proxies: BlockList,
  refusals: { relayed: PrivilegeDecision; public: PrivilegeDecision },
): PrivilegeDecision {
  const forwarded = FORWARDING_HEADERS.some((name) => header(input.headers, name) !== undefined);
  if (forwarded && input.auth.trusted_proxies.length === 0) {
    // Behind a proxy nobody declared, the private peer may be relaying the internet.
    return isLoopback(peer) ? { allowed: true, via: 'local_network' } : refusals.relayed;
  }
  const client = resolveClientAddress(peer, header(input.headers, 'x-forwarded-for'), proxies);
  return isLocalNetwork(client) ? { allowed: true, via: 'local_network' } : refusals.public;
}

function hasProxyIdentity(
  input: Pick<PrivilegeRequest, 'headers' | 'auth'>,
  peer: string,
  proxies: BlockList,
): boolean {
  const name = input.auth.proxy_auth_header;
  if (!name || !inList(proxies, peer)) return false;
  const value = header(input.headers, name.toLowerCase())?.trim();
  if (!value) return false;
  const allow = input.auth.proxy_auth_allow;
  return allow.length === 0 || allow.some((entry) => entry.toLowerCase() === value.toLowerCase());
}

function header(headers: PrivilegeRequest['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

function unauthorized(reason: string): PrivilegeDecision {
  return { allowed: false, status: 401, code: 'unauthorized', reason };
}

function forbidden(code: string, reason: string): PrivilegeDecision {
  return { allowed: false, status: 403, code, reason };
}

export interface PrivilegeDeps {
  authConfig: () => AuthConfig;
  /** A real credential (session or API token) was presented; network position does not count. */
  hasCredential: (request: FastifyRequest) => boolean;
}

export function requirePrivileged(deps: PrivilegeDeps): preHandlerAsyncHookHandler {
  return async (request, reply) => {
    refuse(
      reply,
      decidePrivilege({
        peer: request.raw.socket.remoteAddress ?? '',
        headers: request.headers,
        auth: deps.authConfig(),
        authenticated: deps.hasCredential(request),
      }),
    );
  };
}

/** The preHandler of POST /auth/setup (decideSetupAccess). */
export function requireSetupAccess(authConfig: () => AuthConfig): preHandlerAsyncHookHandler {
  return async (request, reply) => {
    refuse(
      reply,
      decideSetupAccess({
        peer: request.raw.socket.remoteAddress ?? '',
        headers: request.headers,
        auth: authConfig(),
      }),
    );
  };
}

function refuse(reply: FastifyReply, decision: PrivilegeDecision): void {
  if (decision.allowed) return;
  if (decision.status === 401) reply.header('WWW-Authenticate', 'Bearer realm="raincheck"');
  const message = decision.status === 401 ? 'unauthorized' : decision.reason;
  throw new ApiError(decision.status, decision.code, message, {}, { reason: decision.reason });
}
