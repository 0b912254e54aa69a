import type { RemoteInfo } from 'node:dgram';
import { networkInterfaces } from 'node:os';
import type { QueryPacket } from 'multicast-dns';
import type { Module } from '../core/lifecycle';
import type { Logger } from '../core/logger';
import { answersFor, serviceRecords, type AdvertisedFacts } from './service-records';

/**
 * Announces the service on the LAN over mDNS (`_raincheck._tcp`, see
 * service-records.ts) and answers queries for it. The multicast-dns
 * library loads on start, after the HTTP server listens, so boot does not
 * wait for it. A socket that cannot bind (port 5353 taken without address
 * reuse, no multicast route) is one warning and a service without the
 * advertisement, never a failed start.
 *
 * `address` set (tests): unicast on that address and port only, no group
 * membership and no unsolicited announcements; queries are answered
 * straight to the asker.
 */

export const MDNS_PORT = 5353;

export interface MdnsSettings {
  enabled: boolean;
  port: number;
  address: string | null;
}

export interface MdnsAdvertiserDeps {
  logger: Logger;
  settings: MdnsSettings;
  /** What to advertise; null (no install id yet) advertises nothing. */
  facts: () => Omit<AdvertisedFacts, 'addresses'> | null;
}

type MdnsInstance = ReturnType<typeof import('multicast-dns')>;

/** RFC 6762 8.3: announce twice, a second apart. */
const ANNOUNCE_GAP_MS = 1000;

export class MdnsAdvertiser implements Module {
  readonly name = 'mdns';
  private readonly log: Logger;
  private mdns: MdnsInstance | null = null;
  private announceTimer: NodeJS.Timeout | null = null;

  constructor(private readonly deps: MdnsAdvertiserDeps) {
    this.log = deps.logger.child({ module: 'mdns' });
  }

  async start(): Promise<void> {
    const { settings } = this.deps;
    if (!settings.enabled || this.mdns || !this.deps.facts()) return;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const create = require('multicast-dns') as typeof import('multicast-dns');
    const mdns = settings.address
      ? create({ multicast: false, port: settings.port, ip: settings.address, interface: settings.address })
      : create({ port: settings.port });
    this.mdns = mdns;
    mdns.on('error', (err: Error) => {
      this.log.warn({ err: err.message }, 'mDNS advertisement off: the socket could not be opened');
      void this.close();
    });
    mdns.on('warning', (err: Error) => this.log.debug({ err: err.message }, 'mDNS warning'));
    mdns.on('query', (query: QueryPacket, from: RemoteInfo) => this.answer(query, from));
    if (!settings.address) this.announce(2);
  }

  async stop(): Promise<void> {
    if (this.announceTimer) clearTimeout(this.announceTimer);
    const facts = this.current();
    const mdns = this.mdns;
    if (mdns && facts && !this.deps.settings.address) {
      // Goodbye: the same records with TTL 0, so browsers drop the instance at once.
      await new Promise<void>((resolve) =>
        mdns.respond({ answers: serviceRecords(facts, 0) }, () => resolve()),
      );
    }
    await this.close();
  }

  private async close(): Promise<void> {
    const mdns = this.mdns;
    this.mdns = null;
    if (mdns) await new Promise<void>((resolve) => mdns.destroy(() => resolve()));
  }

  private current(): AdvertisedFacts | null {
    const facts = this.deps.facts();
    if (!facts) return null;
    const address = this.deps.settings.address;
    return { ...facts, addresses: address ? [address] : ipv4Addresses() };
  }

  private announce(times: number): void {
    const facts = this.current();
    if (!this.mdns || !facts || times <= 0) return;
    this.mdns.respond({ answers: serviceRecords(facts) });
    this.announceTimer = setTimeout(() => this.announce(times - 1), ANNOUNCE_GAP_MS);
    this.announceTimer.unref();
  }

  private answer(query: QueryPacket, from: RemoteInfo): void {
    const facts = this.current();
    if (!this.mdns || !facts) return;
    const answers = answersFor(query.questions, facts);
    if (answers.length === 0) return;
    if (from.port !== this.deps.settings.port || this.deps.settings.address) {
      // A legacy unicast query (RFC 6762 6.7): answer the asker directly, echoing its id and questions.
      this.mdns.respond(
        {
          id: query.id,
          questions: query.questions,
          answers: answers.map((a) => ({
            ...a,
            ttl: Math.min((a as { ttl?: number }).ttl ?? 10, 10),
          })) as typeof answers,
        },
        { port: from.port, address: from.address },
      );
      return;
    }
    this.mdns.respond({ answers });
  }
}

/** The host's non-internal IPv4 addresses (on the add-on's host network: the host's own). */
function ipv4Addresses(): string[] {
  const out: string[] = [];
  for (const list of Object.values(networkInterfaces())) {
    for (const iface of list ?? []) if (iface.family === 'IPv4' && !iface.internal) out.push(iface.address);
  }
  return out;
}
