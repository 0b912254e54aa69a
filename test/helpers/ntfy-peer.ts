import { randomBytes } from 'node:crypto';
import { LoopbackPeer, json, type PeerReply, type SeenRequest } from './loopback-peer';

/**
 * A loopback ntfy server, as its publish API documents it (docs.ntfy.sh/publish)
 * and its server source behaves: POST /<topic> with the message as the body;
 * Title, Priority (1..5 or min/low/default/high/urgent/max), Tags (comma
 * separated), Click headers, RFC 2047 encoded header values decoded; a
 * protected topic wants `Authorization: Bearer <token>`: no token answers 403
 * `forbidden` (40301), a wrong one 401 `unauthorized` (40101). A published
 * message is answered with its JSON (id, time, event "message", topic, ...).
 * `failWith` makes the next answers a given status (5xx, 429 with Retry-After).
 */

export interface NtfyMessage {
  topic: string;
  title: string | null;
  message: string;
  priority: number;
  tags: string[];
  click: string | null;
  authorization: string | null;
}

const PRIORITIES: Record<string, number> = { min: 1, low: 2, default: 3, high: 4, urgent: 5, max: 5 };

export class NtfyPeer {
  readonly messages: NtfyMessage[] = [];
  /** Statuses to answer before accepting again (consumed one per request). */
  failWith: number[] = [];
  private readonly peer: LoopbackPeer;

  constructor(private readonly options: { topic: string; token?: string }) {
    this.peer = new LoopbackPeer((req) => this.handle(req));
  }

  get baseUrl(): string {
    return this.peer.baseUrl;
  }

  get requests(): SeenRequest[] {
    return this.peer.requests;
  }

  async start(): Promise<this> {
    await this.peer.start();
    return this;
  }

  close(): Promise<void> {
    return this.peer.close();
  }

  private handle(req: SeenRequest): PeerReply {
    const topic = decodeURIComponent(req.path.slice(1));
    if (req.method !== 'POST' && req.method !== 'PUT') return error(405, 40500, 'method not allowed');
    const auth = header(req, 'authorization');
    if (this.options.token) {
      if (!auth) return error(403, 40301, 'forbidden');
      if (auth !== `Bearer ${this.options.token}`) return error(401, 40101, 'unauthorized');
    }
    if (topic !== this.options.topic) return error(404, 40401, 'page not found');
    const forced = this.failWith.shift();
    if (forced === 429)
      return { ...error(429, 42901, 'limit reached: too many requests'), headers: { 'retry-after': '1' } };
    if (forced) return error(forced, forced * 100 + 1, 'internal server error');
    const priorityText = header(req, 'priority') ?? 'default';
    const priority = /^[1-5]$/.test(priorityText) ? Number(priorityText) : PRIORITIES[priorityText];
    if (!priority) return error(400, 40007, 'invalid priority');
    const message: NtfyMessage = {
      topic,
      title: header(req, 'title'),
      message: req.body,
      priority,
      tags: (header(req, 'tags') ?? '')
        .split(',')
        .map((t) => t.trim())
        .filter(Boolean),
      click: header(req, 'click'),
      authorization: auth,
    };
    this.messages.push(message);
    return json(200, {
      id: randomBytes(6).toString('hex'),
      time: Math.floor(Date.now() / 1000),
      event: 'message',
      topic,
      ...(message.title ? { title: message.title } : {}),
      message: message.message,
      priority,
      tags: message.tags,
      ...(message.click ? { click: message.click } : {}),
    });
  }
}

function error(status: number, code: number, text: string): PeerReply {
  return json(status, { code, http: status, error: text, link: 'https://ntfy.sh/docs/publish/' });
}

/** The header's value, an RFC 2047 encoded word (`=?UTF-8?B|Q?...?=`) decoded as ntfy does. */
function header(req: SeenRequest, name: string): string | null {
  const raw = req.headers[name];
  const value = Array.isArray(raw) ? raw[0] : raw;
  if (value === undefined) return null;
  return value.replace(/=\?utf-8\?([bq])\?([^?]*)\?=/gi, (_m, enc: string, text: string) =>
    enc.toLowerCase() === 'b'
      ? Buffer.from(text, 'base64').toString('utf8')
      : Buffer.from(
          text
            .replace(/_/g, ' ')
            .replace(/=([0-9a-f]{2})/gi, (_x, hex: string) => String.fromCharCode(parseInt(hex, 16))),
          'latin1',
        ).toString('utf8'),
  );
}
