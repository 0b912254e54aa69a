import { hostname } from 'node:os';
import { isIP, type BlockList } from 'node:net';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../http/errors';
import { inList, normalizeAddress } from './network';

/**
 * Cross-site writes and DNS rebinding, refused in both auth modes (spec 5.6
 * asks it only when auth is required; a LAN install with auth disabled needs
 * it more). A state-changing request (not GET, HEAD or OPTIONS):
 *
 * - whose `Origin` names another host than the one it was sent to (`Host`, or
 *   a trusted proxy's `X-Forwarded-Host`), or is `null`, answers 403
 *   `origin_mismatch`; so does one a browser marks `Sec-Fetch-Site: cross-site`;
 * - sent by a browser (it carries `Origin` or `Sec-Fetch-Site`) to a `Host`
 *   this install does not answer to answers 403 `host_not_allowed`. A page on
 *   evil.example whose name was rebound to this install's address is
 *   same-origin with itself, so only the host name gives it away.
 *
 * Requests without those browser headers (API clients, curl, HA's
 * integration) pass: a browser cannot be made to omit them. A request whose
 * peer is a trusted proxy is checked against the host the proxy forwards
 * (HA ingress forwards the host the user typed) and not against the host list.
 */

export interface HostPolicy {
  proxies: BlockList;
  /** Exact names (lower case) and `*.suffix` wildcards from `auth.allowed_hosts`, plus this host's names. */
  allowedHosts: readonly string[];
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function refuseForeignRequest(request: FastifyRequest, policy: HostPolicy): void {
  if (SAFE_METHODS.has(request.method)) return;
  const origin = request.headers.origin;
  const fetchSite = request.headers['sec-fetch-site'];
  if (origin === undefined && fetchSite === undefined) return;
  const viaProxy = inList(policy.proxies, normalizeAddress(request.raw.socket.remoteAddress ?? ''));
  const forwardedHost = request.headers['x-forwarded-host'];
  const host =
    viaProxy && typeof forwardedHost === 'string'
      ? forwardedHost.split(',')[0]?.trim()
      : request.headers.host;
  if (origin !== undefined ? hostOf(origin) !== host?.toLowerCase() : fetchSite === 'cross-site') {
    throw new ApiError(403, 'origin_mismatch', 'cross-origin request refused: Origin does not match Host');
  }
  if (!viaProxy && host !== undefined && !answersTo(host, policy.allowedHosts)) {
    throw new ApiError(
      403,
      'host_not_allowed',
      `this install does not answer to the host name "${hostNameOf(host)}"; add it to auth.allowed_hosts`,
    );
  }
}

/** The names every install answers to besides IP literals and localhost: its own host name. */
export function ownHostNames(addon: boolean): string[] {
  const own = hostname().toLowerCase();
  const names = own ? [own, `${own}.local`] : [];
  // The add-on's port mapped on the HA host: reached as homeassistant(.local).
  return addon ? [...names, 'homeassistant', 'homeassistant.local'] : names;
}

/** An IP literal, localhost, or a configured name (`*.example.com` takes its subdomains). */
export function answersTo(host: string, allowed: readonly string[]): boolean {
  const name = hostNameOf(host);
  if (isIP(name) !== 0) return true;
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  return allowed.some((entry) => (entry.startsWith('*.') ? name.endsWith(entry.slice(1)) : entry === name));
}

/** `Example.COM:8099` -> `example.com`; `[::1]:8099` -> `::1`; a trailing dot dropped. */
export function hostNameOf(host: string): string {
  const trimmed = host.trim().toLowerCase();
  const bracket = /^\[([^\]]*)\]/.exec(trimmed);
  const name = bracket ? (bracket[1] ?? '') : trimmed.replace(/:\d*$/, '');
  return name.endsWith('.') ? name.slice(0, -1) : name;
}

function hostOf(origin: string): string | null {
  try {
    return new URL(origin).host.toLowerCase();
  } catch {
    return null;
  }
}
