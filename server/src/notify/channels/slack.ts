import type { Channel, Notice, SendResult } from '../types';
import { httpOutcome, transportFailure } from './http-outcome';
import { absoluteLink } from './links';

/**
 * A Slack-style incoming webhook (Slack, Mattermost, Rocket.Chat, Discord's
 * `/slack` endpoint): POST `{"text": ...}` as JSON to the webhook URL, which
 * answers 200 `ok`. The URL carries the credential, so it is a secret: it is
 * scrubbed from every error and never logged.
 */

export interface SlackSettings {
  webhook_url: string;
}

export interface SlackDeps {
  fetch: typeof fetch;
  publicUrl: string | null;
  timeoutMs?: number;
}

const MARK = { info: '', warning: ':warning: ', critical: ':rotating_light: ' } as const;

export class SlackChannel implements Channel {
  readonly id = 'slack' as const;

  constructor(
    private readonly settings: SlackSettings,
    private readonly deps: SlackDeps,
  ) {}

  async send(notice: Notice): Promise<SendResult> {
    const secrets = [this.settings.webhook_url, ...urlParts(this.settings.webhook_url)];
    try {
      const response = await this.deps.fetch(this.settings.webhook_url, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json; charset=utf-8' },
        body: JSON.stringify({ text: this.text(notice) }),
        signal: AbortSignal.timeout(this.deps.timeoutMs ?? 15_000),
      });
      const body = await response.text();
      return httpOutcome(response, body, secrets, 'posted to the chat webhook');
    } catch (err) {
      return transportFailure(err, secrets);
    }
  }

  /** Slack's mrkdwn: the title in bold, the body, and a link into the app when the service knows its address. */
  private text(notice: Notice): string {
    const link = absoluteLink(this.deps.publicUrl, notice.link);
    return [
      `${MARK[notice.severity]}*${escape(notice.title)}*`,
      escape(notice.body),
      ...(link ? [`<${link}|Open in Raincheck>`] : []),
    ].join('\n');
  }
}

/** Slack's three control characters (api docs, "Escaping text"). */
export function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** The path segments of the webhook URL (its token parts), scrubbed too wherever they appear alone. */
function urlParts(url: string): string[] {
  try {
    return new URL(url).pathname.split('/').filter((part) => part.length >= 8);
  } catch {
    return [];
  }
}
