/**
 * The notification domain's shared vocabulary: a notice (what the owner is
 * told), the channels that carry it and what one delivery attempt answers.
 * Channels see notices only; they never import the engine or the bus.
 */

export const CHANNEL_IDS = ['web_push', 'ntfy', 'slack', 'email'] as const;
export type ChannelId = (typeof CHANNEL_IDS)[number];

export const CHANNEL_LABELS: Record<ChannelId, string> = {
  web_push: 'Web Push (this app on your devices)',
  ntfy: 'ntfy',
  slack: 'Chat webhook (Slack-style)',
  email: 'E-mail',
};

export type Severity = 'info' | 'warning' | 'critical';

export interface Notice {
  /** Catalog event id (`watering_finished`, ...; `test` for "Send a test"). */
  event: string;
  severity: Severity;
  title: string;
  body: string;
  /**
   * Deep link into the web app from its root (`/zones/front_lawn`): the service
   * worker resolves it under its scope (HA ingress included); other channels
   * under RAINCHECK_PUBLIC_URL when it is set.
   */
  link: string;
  /** The notification tag: a newer notice with the same tag replaces the older one on a device. */
  tag: string;
  /** Coalescing key (usually the tag; differs where a later state of the same thing must get through). */
  key: string;
  /** Duplicates with the same key within this many seconds are dropped (0: never coalesced). */
  window_s: number;
  epoch: number;
}

/**
 * One attempt's answer. `retry` carries what is left to do (`resume`: for Web
 * Push the devices not reached yet), handed back on the next attempt.
 */
export type SendResult =
  | { status: 'sent'; detail: string }
  | { status: 'skipped'; detail: string }
  | { status: 'failed'; detail: string }
  | { status: 'retry'; detail: string; resume?: unknown; retryAfterMs?: number };

export interface Channel {
  readonly id: ChannelId;
  send(notice: Notice, resume: unknown): Promise<SendResult>;
  /** Releases connections (mail transport); optional. */
  close?(): void;
}
