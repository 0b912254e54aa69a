import { epochSeconds, type Clock } from '../../server/src/core/clock';
import { json, LoopbackPeer, type PeerReply, type SeenRequest } from './loopback-peer';

/**
 * A loopback ESPHome `web_server` (shared/fixtures/esphome.md) with switch
 * and valve entities: GET /<domain>/<entity> answers the state payload, POST
 * /<domain>/<entity>/<method> acts and answers 200 with an empty body; an
 * unknown entity or method is 404, a GET on an action URL is refused (405),
 * valve `set?position=` on a valve without position support is 409. The
 * addressing is selectable: `legacy` firmware knows entities by object id
 * (/switch/front_lawn, JSON id `switch-front_lawn`), `name` firmware by entity
 * name (/switch/Front%20Lawn, JSON id `switch/Front Lawn`). Optional basic auth.
 *
 * The sprinkler component (esphome.md): `number` entities answer their value
 * and take `set?value=` (a value outside min..max is ignored, as ESPHome
 * does); a valve switch linked to a run-duration number turns itself off
 * once that duration (seconds or minutes) has passed on the injected clock,
 * as the component's valve run does. `stuck` names relays that accept
 * turn_off but stay on (a welded relay, a stuck valve): the watchdog's case.
 */

export type EsphomeIdFormat = 'legacy' | 'name';

export type ValveOperation = 'IDLE' | 'OPENING' | 'CLOSING';

export interface PeerEntityInput {
  domain: 'switch' | 'valve' | 'number';
  name: string;
  on?: boolean;
  /** Valves only: `current_operation` (a valve still opening reads CLOSED + OPENING). */
  operation?: ValveOperation;
  /** Numbers only. */
  value?: number;
  min?: number;
  max?: number;
}

interface PeerEntity {
  domain: 'switch' | 'valve' | 'number';
  name: string;
  on: boolean;
  operation: ValveOperation;
  value: number;
  min: number;
  max: number;
  /** A sprinkler valve running on its own duration: when it turns itself off (epoch seconds). */
  offAt: number | null;
}

/** A sprinkler-component valve: its switch and the number holding its run duration. */
export interface SprinklerValveLink {
  valve: string;
  runDuration: string;
  unit: 's' | 'min';
}

export interface EsphomePeerOptions {
  entities: PeerEntityInput[];
  idFormat?: EsphomeIdFormat;
  auth?: { username: string; password: string };
  /** Needed for sprinkler valves (their run duration runs on it). */
  clock?: Clock;
  sprinkler?: SprinklerValveLink[];
}

const METHODS = {
  switch: ['turn_on', 'turn_off', 'toggle'],
  valve: ['open', 'close', 'stop', 'toggle', 'set'],
  number: ['set'],
};

/** ESPHome's legacy object id: lower case, spaces -> `_`, other non-alphanumerics dropped. */
export function objectId(name: string): string {
  return name
    .toLowerCase()
    .replace(/ /g, '_')
    .replace(/[^a-z0-9_]/g, '');
}

export class EsphomePeer {
  readonly peer: LoopbackPeer;
  readonly idFormat: EsphomeIdFormat;
  /** Hold every request open without answering (timeouts). */
  hang = false;
  /** Relays (by name) that accept turn_off but stay on. */
  readonly stuck = new Set<string>();
  private readonly entities: PeerEntity[];
  private readonly auth: EsphomePeerOptions['auth'];
  private readonly clock: Clock | null;
  private readonly sprinkler: SprinklerValveLink[];

  constructor(options: EsphomePeerOptions) {
    this.entities = options.entities.map((e) => ({
      domain: e.domain,
      name: e.name,
      on: e.on ?? false,
      operation: e.operation ?? 'IDLE',
      value: e.value ?? 0,
      min: e.min ?? 0,
      max: e.max ?? 100_000,
      offAt: null,
    }));
    this.idFormat = options.idFormat ?? 'name';
    this.auth = options.auth;
    this.clock = options.clock ?? null;
    this.sprinkler = options.sprinkler ?? [];
    this.peer = new LoopbackPeer((req) => this.answer(req));
  }

  async start(): Promise<this> {
    await this.peer.start();
    return this;
  }

  close(): Promise<void> {
    return this.peer.close();
  }

  get baseUrl(): string {
    return this.peer.baseUrl;
  }

  get requests(): SeenRequest[] {
    return this.peer.requests;
  }

  /** Whether the entity is on / open, by name. */
  isOn(domain: 'switch' | 'valve', name: string): boolean {
    this.expire();
    return this.find(domain, this.idFormat === 'name' ? name : objectId(name))?.on ?? false;
  }

  /** A number entity's value, by name. */
  valueOf(name: string): number | undefined {
    return this.find('number', this.idFormat === 'name' ? name : objectId(name))?.value;
  }

  setOn(domain: 'switch' | 'valve', name: string, on: boolean): void {
    const entity = this.find(domain, this.idFormat === 'name' ? name : objectId(name));
    if (!entity) throw new Error(`no peer entity ${domain} ${name}`);
    entity.on = on;
  }

  private answer(req: SeenRequest): PeerReply {
    if (this.hang) return { status: 0, body: '', hang: true };
    this.expire();
    if (!this.authorized(req)) {
      return {
        status: 401,
        body: '',
        contentType: 'text/plain',
        headers: { 'WWW-Authenticate': 'Basic realm="Login Required"' },
      };
    }
    const [domain, key, method, ...rest] = req.path.split('/').slice(1).map(decodeURIComponent);
    const entity = domain && key !== undefined && rest.length === 0 ? this.find(domain, key) : undefined;
    if (!entity) return notFound();
    if (method === undefined) return req.method === 'GET' ? json(200, this.payload(entity)) : notFound();
    if (!METHODS[entity.domain].includes(method)) return notFound();
    if (req.method !== 'POST') return { status: 405, body: 'Method Not Allowed', contentType: 'text/plain' };
    return this.act(entity, method, req.query);
  }

  private authorized(req: SeenRequest): boolean {
    if (!this.auth) return true;
    const expected = Buffer.from(`${this.auth.username}:${this.auth.password}`).toString('base64');
    return req.headers.authorization === `Basic ${expected}`;
  }

  private find(domain: string, key: string): PeerEntity | undefined {
    return this.entities.find(
      (e) => e.domain === domain && (this.idFormat === 'name' ? e.name === key : objectId(e.name) === key),
    );
  }

  private act(entity: PeerEntity, method: string, query: URLSearchParams): PeerReply {
    if (entity.domain === 'number') return this.setNumber(entity, query);
    if (method === 'set' && query.has('position')) {
      return { status: 409, body: 'position is not supported', contentType: 'text/plain' };
    }
    const next =
      method === 'turn_on' || method === 'open'
        ? true
        : method === 'turn_off' || method === 'close'
          ? false
          : method === 'toggle'
            ? !entity.on
            : entity.on;
    this.switchTo(entity, next);
    return { status: 200, body: '', contentType: 'text/plain' };
  }

  private switchTo(entity: PeerEntity, on: boolean): void {
    if (!on && this.stuck.has(entity.name)) return;
    entity.on = on;
    entity.offAt = on ? this.runEnd(entity) : null;
  }

  /** A sprinkler valve switched on runs for its number's value (or until turned off). */
  private runEnd(entity: PeerEntity): number | null {
    const link = this.sprinkler.find((l) => l.valve === entity.name);
    const number = link
      ? this.entities.find((e) => e.domain === 'number' && e.name === link.runDuration)
      : null;
    if (!link || !number || !this.clock) return null;
    return epochSeconds(this.clock) + number.value * (link.unit === 'min' ? 60 : 1);
  }

  private expire(): void {
    if (!this.clock) return;
    const now = epochSeconds(this.clock);
    for (const entity of this.entities) {
      if (entity.offAt !== null && now >= entity.offAt) this.switchTo(entity, false);
    }
  }

  /** `set?value=`: a value outside min..max is ignored (the answer is still 200). */
  private setNumber(entity: PeerEntity, query: URLSearchParams): PeerReply {
    const value = Number(query.get('value'));
    if (query.has('value') && Number.isFinite(value) && value >= entity.min && value <= entity.max) {
      entity.value = value;
    }
    return { status: 200, body: '', contentType: 'text/plain' };
  }

  private payload(entity: PeerEntity): Record<string, unknown> {
    const id =
      this.idFormat === 'name'
        ? `${entity.domain}/${entity.name}`
        : `${entity.domain}-${objectId(entity.name)}`;
    if (entity.domain === 'switch') return { id, state: entity.on ? 'ON' : 'OFF', value: entity.on };
    if (entity.domain === 'number') return { id, state: String(entity.value), value: entity.value };
    return {
      id,
      state: entity.on ? 'OPEN' : 'CLOSED',
      value: entity.on ? 1 : 0,
      current_operation: entity.operation,
    };
  }
}

function notFound(): PeerReply {
  return { status: 404, body: 'Not Found', contentType: 'text/plain' };
}
