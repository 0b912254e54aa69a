import type { Channel, Notice, SendResult, Severity } from '../types';
import { httpOutcome, transportFailure } from './http-outcome';
import { absoluteLink } from './links';

/**
 * ntfy (docs.ntfy.sh/publish): POST the message text to `<base_url>/<topic>`
 * with the Title, Priority, Tags and Click headers and, for a protected
 * topic, `Authorization: Bearer <auth_token>`. Header values outside ASCII
 * are sent RFC 2047 encoded (`=?UTF-8?B?...?=`), which ntfy decodes.
 */

export interface NtfySettings {
  base_url: string;
  topic: string;
  auth_token?: string | null;
}

export interface NtfyDeps {
  fetch: typeof fetch;
  publicUrl: string | null;
  timeoutMs?: number;
}

/** ntfy priorities 1..5: routine news at the default, problems high, a valve or credential max. */
const PRIORITY: Record<Severity, string> = { info: '3', warning: '4', critical: '5' };
/** Emoji short codes ntfy shows before the title. */
const SEVERITY_TAG: Record<Severity, string> = {
  info: 'droplet',
  warning: 'warning',
  critical: 'rotating_light',
};

export class NtfyChannel implements Channel {
  readonly id = 'ntfy' as const;

  constructor(
    private readonly settings: NtfySettings,
    private readonly deps: NtfyDeps,
  ) {}

  async send(notice: Notice): Promise<SendResult> {
    const secrets = this.settings.auth_token ? [this.settings.auth_token] : [];
    try {
      const response = await this.deps.fetch(this.topicUrl(), {
        method: 'POST',
        headers: this.headers(notice),
        body: notice.body,
        signal: AbortSignal.timeout(this.deps.timeoutMs ?? 15_000),
      });
      const text = await response.text();
      return httpOutcome(response, text, secrets, `published to topic ${this.settings.topic}`);
    } catch (err) {
      return transportFailure(err, secrets);
    }
  }

  private topicUrl(): string {
    const base = this.settings.base_url.endsWith('/') ? this.settings.base_url : `${this.settings.base_url}/`;
    return new URL(encodeURIComponent(this.settings.topic), base).href;
  }

  private headers(notice: Notice): Record<string, string> {
    const headers: Record<string, string> = {
      'Content-Type': 'text/plain; charset=utf-8',
      Title: headerText(notice.title),
      Priority: PRIORITY[notice.severity],
      Tags: [SEVERITY_TAG[notice.severity], notice.event].join(','),
    };
    const click = absoluteLink(this.deps.publicUrl, notice.link);
    if (click) headers.Click = click;
    if (this.settings.auth_token) headers.Authorization = `Bearer ${this.settings.auth_token}`;
    return headers;
  }
}

/** ASCII as is; anything else as an RFC 2047 encoded word (HTTP headers carry Latin-1 at most). */
export function headerText(text: string): string {
  const oneLine = text.replace(/[\r\n]+/g, ' ');
  if (/^[\x20-\x7e]*$/.test(oneLine)) return oneLine;
  return `=?UTF-8?B?${Buffer.from(oneLine, 'utf8').toString('base64')}?=`;
}
