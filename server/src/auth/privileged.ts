import type { FastifyRequest, preHandlerAsyncHookHandler } from 'fastify';
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

type AuthConfig = RaincheckConfig['auth'];

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
  const { auth } = input;
  const peer = normalizeAddress(input.peer);
  const proxies = buildBlockList(auth.trusted_proxies);
  if (hasProxyIdentity(input, peer, proxies)) return { allowed: true, via: 'proxy_identity' };
  if (input.authenticated) return { allowed: true, via: 'credential' };

  const client = resolveClientAddress(peer, header(input.headers, 'x-forwarded-for'), proxies);
  if (inList(buildBlockList(auth.trusted_networks), client)) return { allowed: true, via: 'trusted_network' };
  if (auth.mode === 'required') return unauthorized('this action needs a signed-in owner or an API token');

  const forwarded = FORWARDING_HEADERS.some((name) => header(input.headers, name) !== undefined);
  if (forwarded && auth.trusted_proxies.length === 0) {
    // Behind a proxy nobody declared, the private peer may be relaying the internet.
    if (isLoopback(peer)) return { allowed: true, via: 'local_network' };
    return unauthorized('the request came through a proxy that is not in auth.trusted_proxies; sign in');
  }
  if (isLocalNetwork(client)) return { allowed: true, via: 'local_network' };
  return {
    allowed: false,
    status: 403,
    code: 'privileged_public_client',
    reason: 'changes are refused from internet addresses while auth is disabled; enable auth to allow them',
  };
}

function hasProxyIdentity(
  input: PrivilegeRequest,
  peer: string,
  proxies: ReturnType<typeof buildBlockList>,
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

export interface PrivilegeDeps {
  authConfig: () => AuthConfig;
  /** A real credential (session or API token) was presented; network position does not count. */
  hasCredential: (request: FastifyRequest) => boolean;
}

export function requirePrivileged(deps: PrivilegeDeps): preHandlerAsyncHookHandler {
  return async (request, reply) => {
    const decision = decidePrivilege({
      peer: request.raw.socket.remoteAddress ?? '',
      headers: request.headers,
      auth: deps.authConfig(),
      authenticated: deps.hasCredential(request),
    });
    if (decision.allowed) return;
    if (decision.status === 401) reply.header('WWW-Authenticate', 'Bearer realm="raincheck"');
    const message = decision.status === 401 ? 'unauthorized' : decision.reason;
    throw new ApiError(decision.status, decision.code, message, {}, { reason: decision.reason });
  };
}
