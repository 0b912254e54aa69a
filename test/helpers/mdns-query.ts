import type { Answer, Question } from 'dns-packet';
import createMdns from 'multicast-dns';
import { freeUdpPort } from './udp-port';

/**
 * A real DNS-SD query as a phone or a companion integration sends it, over
 * UDP on loopback (a legacy unicast query, RFC 6762 6.7: from a port other
 * than 5353, so the responder answers the asker directly). Loopback rather
 * than the 224.0.0.251 group: a test must not talk to the machine's LAN.
 */

export interface MdnsAnswer {
  answers: Answer[];
  additionals: Answer[];
}

export async function mdnsQuery(
  port: number,
  questions: Question[],
  timeoutMs = 3000,
  address = '127.0.0.1',
): Promise<MdnsAnswer | null> {
  const own = await freeUdpPort();
  const mdns = createMdns({ multicast: false, port: own, ip: address, interface: address });
  try {
    return await new Promise<MdnsAnswer | null>((resolve, reject) => {
      const timer = setTimeout(() => resolve(null), timeoutMs);
      mdns.on('error', (err: Error) => {
        clearTimeout(timer);
        reject(err);
      });
      mdns.on('response', (packet) => {
        clearTimeout(timer);
        resolve({ answers: packet.answers, additionals: packet.additionals });
      });
      mdns.query({ questions }, { port, address });
    });
  } finally {
    await new Promise<void>((resolve) => mdns.destroy(() => resolve()));
  }
}

/** Asks until the responder answers (the service starts its advertisement a moment after listening). */
export async function mdnsAnswer(port: number, questions: Question[], attempts = 10): Promise<MdnsAnswer> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    const reply = await mdnsQuery(port, questions, 1000);
    if (reply) return reply;
  }
  throw new Error(`no mDNS answer on port ${port}`);
}

/** The TXT record's key=value pairs. */
export function txtPairs(answer: Answer | undefined): Record<string, string> {
  const data = (answer as { data?: (string | Buffer)[] } | undefined)?.data ?? [];
  return Object.fromEntries(
    data.map((item) => {
      const text = item.toString();
      const at = text.indexOf('=');
      return [text.slice(0, at), text.slice(at + 1)];
    }),
  );
}
