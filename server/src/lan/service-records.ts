import type { Answer, Question } from 'dns-packet';

/**
 * The DNS-SD records (RFC 6763) that announce this service on the LAN, and
 * which of them answer a question (pure). One instance of `_raincheck._tcp`:
 *
 *   _raincheck._tcp.local             PTR  Raincheck <id8>._raincheck._tcp.local
 *   Raincheck <id8>._raincheck._tcp.local  SRV  port, target raincheck-<id8>.local
 *   Raincheck <id8>._raincheck._tcp.local  TXT  uuid=<install id> api_version=<x.y.z>
 *                                              base_path=/api/v1 version=<service version>
 *   raincheck-<id8>.local             A    each IPv4 address of the host
 *
 * `uuid` is /info's install id (spec 2.1: "also broadcast in the LAN
 * service-discovery record"), so a companion integration or a phone can
 * tell two installs apart and recognise one it already knows at a new
 * address. `_services._dns-sd._udp.local` (service type enumeration) answers
 * with the type's PTR.
 */

export const SERVICE_TYPE = '_raincheck._tcp.local';
export const SERVICE_ENUMERATION = '_services._dns-sd._udp.local';
/** RFC 6762 10: 75 minutes for records not tied to a host's addresses, 120 s for those that are. */
const SERVICE_TTL_S = 4500;
const HOST_TTL_S = 120;

export interface AdvertisedFacts {
  uuid: string;
  port: number;
  apiVersion: string;
  basePath: string;
  serviceVersion: string;
  /** The IPv4 addresses the service is reachable at. */
  addresses: string[];
}

export interface ServiceNames {
  instance: string;
  host: string;
}

export function serviceNames(uuid: string): ServiceNames {
  const short = uuid.replace(/-/g, '').slice(0, 8);
  return { instance: `Raincheck ${short}.${SERVICE_TYPE}`, host: `raincheck-${short}.local` };
}

/** Every record of the instance; `ttlScale` 0 makes them goodbyes (RFC 6762 10.1). */
export function serviceRecords(facts: AdvertisedFacts, ttlScale = 1): Answer[] {
  const names = serviceNames(facts.uuid);
  const ttl = (seconds: number) => Math.round(seconds * ttlScale);
  return [
    { name: SERVICE_TYPE, type: 'PTR', ttl: ttl(SERVICE_TTL_S), data: names.instance },
    {
      name: names.instance,
      type: 'SRV',
      ttl: ttl(HOST_TTL_S),
      flush: true,
      data: { port: facts.port, target: names.host, priority: 0, weight: 0 },
    },
    {
      name: names.instance,
      type: 'TXT',
      ttl: ttl(SERVICE_TTL_S),
      flush: true,
      data: [
        `uuid=${facts.uuid}`,
        `api_version=${facts.apiVersion}`,
        `base_path=${facts.basePath}`,
        `version=${facts.serviceVersion}`,
      ],
    },
    ...facts.addresses.map((address): Answer => ({
      name: names.host,
      type: 'A',
      ttl: ttl(HOST_TTL_S),
      flush: true,
      data: address,
    })),
  ];
}

/** The records that answer these questions; empty when none is about this service. */
export function answersFor(questions: readonly Question[], facts: AdvertisedFacts): Answer[] {
  const names = serviceNames(facts.uuid);
  const all = serviceRecords(facts);
  const out = new Set<Answer>();
  for (const q of questions) {
    const name = q.name.toLowerCase();
    const wants = (type: string) => (q.type as string) === type || (q.type as string) === 'ANY';
    if (name === SERVICE_ENUMERATION.toLowerCase() && wants('PTR')) {
      out.add({ name: SERVICE_ENUMERATION, type: 'PTR', ttl: SERVICE_TTL_S, data: SERVICE_TYPE });
    }
    if (name === SERVICE_TYPE && wants('PTR')) for (const r of all) out.add(r);
    if (name === names.instance.toLowerCase()) {
      for (const r of all) if (r.type !== 'PTR' && (wants(r.type) || r.type === 'A')) out.add(r);
    }
    if (name === names.host && wants('A')) for (const r of all) if (r.type === 'A') out.add(r);
  }
  return [...out];
}
