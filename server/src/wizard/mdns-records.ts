import type { Answer, Question } from 'dns-packet';
import { compareText } from '../core/compare';

/**
 * The controllers an mDNS sweep found, read from the DNS records of every
 * answer (PTR service -> instance, SRV instance -> host and port, A host ->
 * address, TXT instance -> key=value pairs), whichever section carried them.
 *
 * - ESPHome advertises `_esphomelib._tcp` (its native API, port 6053). The
 *   `esphome_native` kind talks to its web_server instead, so the suggested
 *   base_url uses the port of an `_http._tcp` instance on the same host (the
 *   web_server's own record), else 80. TXT `friendly_name` names it.
 * - OpenSprinkler has no service type of its own: an `_http._tcp` instance
 *   whose name or host name contains "opensprinkler" (a name heuristic; a host
 *   that is an ESPHome device is left out).
 * - Ecowitt gateways: no mDNS service type of theirs could be confirmed, so none.
 *
 * The host is the device's IPv4 address (its A record, else the address the
 * answer came from), else its .local name: containers often cannot resolve
 * .local names.
 */

export const ESPHOME_SERVICE = '_esphomelib._tcp.local';
export const HTTP_SERVICE = '_http._tcp.local';
/** The one query of a sweep. */
export const CONTROLLER_QUESTIONS: Question[] = [
  { name: ESPHOME_SERVICE, type: 'PTR' },
  { name: HTTP_SERVICE, type: 'PTR' },
];
const DEFAULT_PORTS = { [ESPHOME_SERVICE]: 6053, [HTTP_SERVICE]: 80 };
const OPENSPRINKLER = /opensprinkler/i;

export type SuggestedController =
  | { kind: 'esphome_native'; config: { base_url: string } }
  | { kind: 'opensprinkler'; config: { host: string; port: number } };

export interface DiscoveredController {
  kind: 'esphome' | 'opensprinkler';
  name: string;
  host: string;
  /** The advertised port (ESPHome: its native API). */
  port: number;
  source: 'mdns';
  suggested_controller: SuggestedController;
}

interface Instance {
  service: typeof ESPHOME_SERVICE | typeof HTTP_SERVICE;
  /** The instance label as advertised (`Garden Valves`). */
  label: string;
  sender: string;
}

/** An instance with its SRV, address and TXT resolved. */
interface Resolved extends Instance {
  target: string | null;
  port: number;
  host: string;
  txt: Record<string, string>;
}

export class MdnsRecords {
  private readonly instances = new Map<string, Instance>();
  private readonly services = new Map<string, { target: string; port: number }>();
  private readonly addresses = new Map<string, string>();
  private readonly texts = new Map<string, Record<string, string>>();

  /** Every record of one answer packet; `sender` is the address it came from. */
  add(records: readonly Answer[], sender: string): void {
    for (const record of records) this.addRecord(record, sender);
  }

  controllers(): DiscoveredController[] {
    const resolved = [...this.instances.keys()].map((key) => this.resolve(key));
    const esphomeHosts = new Set(resolved.filter(isEsphome).map((r) => r.host));
    const found = resolved.flatMap((entry): DiscoveredController[] => {
      if (isEsphome(entry)) return [esphome(entry, this.webPort(resolved, entry))];
      if (isOpenSprinkler(entry) && !esphomeHosts.has(entry.host)) return [openSprinkler(entry)];
      return [];
    });
    return found.sort((a, b) => compareText(a.kind, b.kind) || compareText(a.name, b.name));
  }

  private addRecord(record: Answer, sender: string): void {
    const name = dnsKey(record.name);
    if (record.type === 'PTR' && (name === ESPHOME_SERVICE || name === HTTP_SERVICE)) {
      const instance = String(record.data);
      this.instances.set(dnsKey(instance), { service: name, label: labelOf(instance, name), sender });
    } else if (record.type === 'SRV' && record.data && Number.isInteger(record.data.port)) {
      this.services.set(name, { target: dnsKey(String(record.data.target)), port: record.data.port });
    } else if (record.type === 'A' && typeof record.data === 'string') {
      this.addresses.set(name, record.data);
    } else if (record.type === 'TXT') {
      this.texts.set(name, textPairs(record.data));
    }
  }

  private resolve(key: string): Resolved {
    const instance = this.instances.get(key)!;
    const srv = this.services.get(key);
    const address = srv ? this.addresses.get(srv.target) : undefined;
    return {
      ...instance,
      target: srv?.target ?? null,
      port: srv?.port ?? DEFAULT_PORTS[instance.service],
      host: address ?? (instance.sender || srv?.target || ''),
      txt: this.texts.get(key) ?? {},
    };
  }

  /** The web_server port of an ESPHome device: an `_http._tcp` instance on the same host. */
  private webPort(resolved: readonly Resolved[], device: Resolved): number {
    const web = resolved.find(
      (entry) => entry.service === HTTP_SERVICE && entry.target !== null && entry.target === device.target,
    );
    return web?.port ?? 80;
  }
}

function isEsphome(entry: Resolved): boolean {
  return entry.service === ESPHOME_SERVICE;
}

function isOpenSprinkler(entry: Resolved): boolean {
  return (
    entry.service === HTTP_SERVICE &&
    (OPENSPRINKLER.test(entry.label) || OPENSPRINKLER.test(entry.target ?? ''))
  );
}

function esphome(entry: Resolved, webPort: number): DiscoveredController {
  const origin = `http://${hostForUrl(entry.host)}${webPort === 80 ? '' : `:${webPort}`}`;
  return {
    kind: 'esphome',
    name: entry.txt.friendly_name || entry.label,
    host: entry.host,
    port: entry.port,
    source: 'mdns',
    suggested_controller: { kind: 'esphome_native', config: { base_url: origin } },
  };
}

function openSprinkler(entry: Resolved): DiscoveredController {
  return {
    kind: 'opensprinkler',
    name: entry.label,
    host: entry.host,
    port: entry.port,
    source: 'mdns',
    suggested_controller: { kind: 'opensprinkler', config: { host: entry.host, port: entry.port } },
  };
}

/** DNS names compare case-insensitively; a trailing root dot is dropped. */
function dnsKey(name: string): string {
  return name.toLowerCase().replace(/\.$/, '');
}

/** `Garden\.Valves._esphomelib._tcp.local` -> `Garden.Valves`. */
function labelOf(instance: string, service: string): string {
  const name = instance.replace(/\.$/, '');
  const suffix = `.${service}`;
  const label = name.toLowerCase().endsWith(suffix) ? name.slice(0, -suffix.length) : name;
  return label.replace(/\\(.)/g, '$1');
}

function textPairs(data: unknown): Record<string, string> {
  const entries = Array.isArray(data) ? data : [data];
  const pairs: Record<string, string> = {};
  for (const entry of entries) {
    const text = Buffer.isBuffer(entry) ? entry.toString('utf8') : typeof entry === 'string' ? entry : '';
    const at = text.indexOf('=');
    if (at > 0) pairs[text.slice(0, at).toLowerCase()] = text.slice(at + 1);
  }
  return pairs;
}

function hostForUrl(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}
