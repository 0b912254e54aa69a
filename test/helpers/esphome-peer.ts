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
 */

export type EsphomeIdFormat = 'legacy' | 'name';

export type ValveOperation = 'IDLE' | 'OPENING' | 'CLOSING';

export interface PeerEntityInput {
  domain: 'switch' | 'valve';
  name: string;
  on?: boolean;
  /** Valves only: `current_operation` (a valve still opening reads CLOSED + OPENING). */
  operation?: ValveOperation;
}

interface PeerEntity {
  domain: 'switch' | 'valve';
  name: string;
  on: boolean;
  operation: ValveOperation;
}

export interface EsphomePeerOptions {
  entities: PeerEntityInput[];
  idFormat?: EsphomeIdFormat;
  auth?: { username: string; password: string };
}

const METHODS = {
  switch: ['turn_on', 'turn_off', 'toggle'],
  valve: ['open', 'close', 'stop', 'toggle', 'set'],
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
  private readonly entities: PeerEntity[];
  private readonly auth: EsphomePeerOptions['auth'];

  constructor(options: EsphomePeerOptions) {
    this.entities = options.entities.map((e) => ({
      domain: e.domain,
      name: e.name,
      on: e.on ?? false,
      operation: e.operation ?? 'IDLE',
    }));
    this.idFormat = options.idFormat ?? 'name';
    this.auth = options.auth;
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
    return this.find(domain, this.idFormat === 'name' ? name : objectId(name))?.on ?? false;
  }

  setOn(domain: 'switch' | 'valve', name: string, on: boolean): void {
    const entity = this.find(domain, this.idFormat === 'name' ? name : objectId(name));
    if (!entity) throw new Error(`no peer entity ${domain} ${name}`);
    entity.on = on;
  }

  private answer(req: SeenRequest): PeerReply {
    if (this.hang) return { status: 0, body: '', hang: true };
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
    if (method === 'set' && query.has('position')) {
      return { status: 409, body: 'position is not supported', contentType: 'text/plain' };
    }
    if (method === 'turn_on' || method === 'open') entity.on = true;
    if (method === 'turn_off' || method === 'close') entity.on = false;
    if (method === 'toggle') entity.on = !entity.on;
    return { status: 200, body: '', contentType: 'text/plain' };
  }

  private payload(entity: PeerEntity): Record<string, unknown> {
    const id =
      this.idFormat === 'name'
        ? `${entity.domain}/${entity.name}`
        : `${entity.domain}-${objectId(entity.name)}`;
    if (entity.domain === 'switch') return { id, state: entity.on ? 'ON' : 'OFF', value: entity.on };
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
