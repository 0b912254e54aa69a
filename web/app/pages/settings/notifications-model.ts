/**
 * What Settings > Notifications shows, as pure functions (unit tested in
 * test/web-app): the shapes GET /notifications answers, how a delivery reads,
 * and the key a browser subscribes with.
 */

export type ChannelId = 'web_push' | 'ntfy' | 'slack' | 'email';

export interface Delivery {
  epoch: number;
  channel: ChannelId;
  event: string;
  title: string;
  status: 'sent' | 'failed' | 'dropped';
  attempts: number;
  detail: string | null;
}

export interface ChannelState {
  id: ChannelId;
  label: string;
  configured: boolean;
  note: string | null;
  queued: number;
  retrying: { title: string; attempts: number; next_epoch: number; detail: string } | null;
  last_sent: Delivery | null;
  last_failure: Delivery | null;
}

export interface NotifyStatus {
  push: {
    enabled: boolean;
    vapid_configured: boolean;
    key_source: 'config' | 'generated' | null;
    note: string | null;
    devices: number | null;
  };
  links: boolean;
  persisted: boolean;
  channels: ChannelState[];
  events: {
    id: string;
    label: string;
    description: string;
    severity: string;
    routes: Record<ChannelId, boolean>;
  }[];
  recent: Delivery[];
}

export interface TestResult {
  channel: ChannelId;
  status: 'sent' | 'skipped' | 'retry' | 'failed';
  detail: string;
}

/** The applicationServerKey PushManager.subscribe takes, from the base64url key of GET /push/vapid-key. */
export function applicationServerKey(base64url: string): Uint8Array<ArrayBuffer> {
  const base64 = base64url
    .replace(/-/g, '+')
    .replace(/_/g, '/')
    .padEnd(Math.ceil(base64url.length / 4) * 4, '=');
  const text = atob(base64);
  const bytes = new Uint8Array(new ArrayBuffer(text.length));
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}

/** One line for a test result, as the owner reads it. */
export function testLine(result: TestResult, label: string): string {
  switch (result.status) {
    case 'sent':
      return `${label}: sent (${result.detail}).`;
    case 'skipped':
      return `${label}: nothing sent, ${result.detail}.`;
    case 'retry':
      return `${label}: not delivered (${result.detail}); real notices are retried when this happens.`;
    default:
      return `${label}: failed (${result.detail}).`;
  }
}

/** The partial routing update one checkbox makes (PUT /notifications/routes). */
export function routeChange(
  event: string,
  channel: ChannelId,
  on: boolean,
): { routes: Record<string, Record<string, boolean>> } {
  return { routes: { [event]: { [channel]: on } } };
}

export const STATUS_LABEL: Record<Delivery['status'], string> = {
  sent: 'Delivered',
  failed: 'Failed',
  dropped: 'Dropped',
};
