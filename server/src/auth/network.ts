import { BlockList, isIP } from 'node:net';

/**
 * Address facts for the trust model (spec 5.7, 5.8): which peers are loopback,
 * private or ULA, CIDR membership, and the client address behind trusted proxies.
 */

/** `::ffff:192.168.1.5` is an IPv4 peer on a dual-stack socket. */
export function normalizeAddress(address: string): string {
  const trimmed = address.trim();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(trimmed);
  return mapped?.[1] ?? trimmed;
}

function family(address: string): 'ipv4' | 'ipv6' | null {
  const kind = isIP(address);
  return kind === 4 ? 'ipv4' : kind === 6 ? 'ipv6' : null;
}

export function buildBlockList(cidrs: readonly string[]): BlockList {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [address, prefix] = cidr.split('/');
    const kind = address ? family(address) : null;
    if (!address || !kind) continue;
    if (prefix === undefined) list.addAddress(address, kind);
    else list.addSubnet(address, Number(prefix), kind);
  }
  return list;
}

export function inList(list: BlockList, address: string): boolean {
  const normalized = normalizeAddress(address);
  const kind = family(normalized);
  return kind !== null && list.check(normalized, kind);
}

const LOOPBACK = buildBlockList(['127.0.0.0/8', '::1/128']);
const PRIVATE = buildBlockList([
  '10.0.0.0/8',
  '172.16.0.0/12',
  '192.168.0.0/16',
  '169.254.0.0/16',
  'fc00::/7',
  'fe80::/10',
]);

export function isLoopback(address: string): boolean {
  return inList(LOOPBACK, address);
}

/** Loopback, RFC 1918, link-local or IPv6 ULA: a LAN or same-host client. */
export function isLocalNetwork(address: string): boolean {
  return isLoopback(address) || inList(PRIVATE, address);
}

/**
 * The client address: the TCP peer, unless the peer is a trusted proxy, in
 * which case `X-Forwarded-For` is walked from the right, skipping trusted
 * proxies, and the first other hop is the client.
 */
export function resolveClientAddress(
  peer: string,
  forwardedFor: string | undefined,
  trustedProxies: BlockList,
): string {
  const direct = normalizeAddress(peer);
  if (!forwardedFor || !inList(trustedProxies, direct)) return direct;
  const hops = forwardedFor
    .split(',')
    .map(normalizeAddress)
    .filter((hop) => hop !== '');
  for (let i = hops.length - 1; i >= 0; i -= 1) {
    const hop = hops[i] as string;
    // An unparseable hop is still the first untrusted one: it names the client, never the proxy.
    if (!isIP(hop)) return hop;
    if (!inList(trustedProxies, hop)) return hop;
  }
  return hops[0] ?? direct;
}
