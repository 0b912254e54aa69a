import { LoopbackPeer, type PeerReply, type SeenRequest } from './loopback-peer';

/**
 * A loopback Slack-style incoming webhook: POST /services/<team>/<bot>/<token>
 * with a JSON body carrying `text` answers 200 `ok` (text/html, as Slack
 * does); a wrong token 403 `invalid_token`, an unknown hook 404 `no_service`,
 * a body without text 400 `no_text` (or `invalid_payload` when it is not
 * JSON), an archived channel 410 `channel_is_archived`. `failWith` forces
 * the next answers (500 `rollup_error`, 429 with Retry-After).
 */

export const HOOK_PATH = '/services/T0RAIN001/B0CHECK02/';

export class ChatWebhookPeer {
  readonly posts: { text: string; body: unknown }[] = [];
  failWith: number[] = [];
  archived = false;
  private readonly peer = new LoopbackPeer((req) => this.handle(req));

  constructor(readonly token = 'xoxwebhooktoken0123456789') {}

  get url(): string {
    return `${this.peer.baseUrl}${HOOK_PATH}${this.token}`;
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
    if (!req.path.startsWith(HOOK_PATH)) return text(404, 'no_service');
    if (req.path.slice(HOOK_PATH.length) !== this.token) return text(403, 'invalid_token');
    if (this.archived) return text(410, 'channel_is_archived');
    const forced = this.failWith.shift();
    if (forced === 429) return { ...text(429, 'rate_limited'), headers: { 'retry-after': '1' } };
    if (forced) return text(forced, 'rollup_error');
    let body: unknown;
    try {
      body = JSON.parse(req.body);
    } catch {
      return text(400, 'invalid_payload');
    }
    const message = (body as { text?: unknown }).text;
    if (typeof message !== 'string' || message.trim() === '') return text(400, 'no_text');
    this.posts.push({ text: message, body });
    return text(200, 'ok');
  }
}

function text(status: number, body: string): PeerReply {
  return { status, body, contentType: 'text/html' };
}
