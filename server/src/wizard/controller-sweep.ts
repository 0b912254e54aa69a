import type { RemoteInfo } from 'node:dgram';
import type { Question } from 'dns-packet';
import type { ResponsePacket } from 'multicast-dns';
import { CONTROLLER_QUESTIONS, MdnsRecords, type DiscoveredController } from './mdns-records';

/**
 * The controller part of GET /wizard/discover: one mDNS query (PTR
 * `_esphomelib._tcp.local` and `_http._tcp.local`, mdns-records.ts), the
 * answers collected for the sweep's listen time, then the socket closed.
 * A sweep never throws: a socket that cannot bind, a query that cannot be
 * sent (no multicast route) or a factory that fails gives an empty list and
 * a note saying why.
 */

/** What a sweep uses of a multicast-dns instance (tests inject a fake). */
export interface MdnsLink {
  on(event: 'response', listener: (packet: ResponsePacket, from: RemoteInfo) => void): unknown;
  on(event: 'error' | 'warning', listener: (err: Error) => void): unknown;
  query(packet: { questions: Question[] }, callback?: (err: Error | null) => void): void;
  destroy(callback?: () => void): void;
}

export type MdnsFactory = () => MdnsLink;

export interface ControllerSweep {
  controllers: DiscoveredController[];
  /** Why nothing could be found (the sweep failed), else null. */
  note: string | null;
}

/** The real one, on UDP 5353 beside any other responder (reuseAddr), every IPv4 interface. */
export function openMulticastDns(): MdnsLink {
  // Loaded on the first sweep: the wizard is rarely opened again once set up.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const create = require('multicast-dns') as typeof import('multicast-dns');
  return create();
}

export async function sweepControllers(open: MdnsFactory, listenMs: number): Promise<ControllerSweep> {
  let link: MdnsLink;
  try {
    link = open();
  } catch (err) {
    return { controllers: [], note: noteFor(err) };
  }
  const records = new MdnsRecords();
  const failures: string[] = [];
  const warnings: string[] = [];
  link.on('warning', (err) => warnings.push(err.message));
  link.on('response', (packet, from) => collect(records, packet, from));
  const ended = new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, listenMs);
    // A socket error (bind refused) ends the sweep early.
    link.on('error', (err) => {
      failures.push(err.message);
      clearTimeout(timer);
      resolve();
    });
  });
  link.query({ questions: CONTROLLER_QUESTIONS }, (err) => {
    if (err) failures.push(err.message);
  });
  await ended;
  await close(link);
  const controllers = records.controllers();
  const reason = failures[0] ?? warnings[0];
  return { controllers, note: controllers.length === 0 && reason ? noteFor(reason) : null };
}

/** A malformed answer is skipped: it must not throw inside the socket's event. */
function collect(records: MdnsRecords, packet: ResponsePacket, from: RemoteInfo): void {
  try {
    records.add([...(packet.answers ?? []), ...(packet.additionals ?? [])], from.address);
  } catch {
    // Not a record shape we read: ignored like any other device's chatter.
  }
}

function close(link: MdnsLink): Promise<void> {
  return new Promise((resolve) => {
    try {
      link.destroy(() => resolve());
    } catch {
      resolve();
    }
  });
}

function noteFor(reason: unknown): string {
  const text = reason instanceof Error ? reason.message : String(reason);
  return `controller discovery (mDNS) failed: ${text}`;
}
