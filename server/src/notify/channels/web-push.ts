import { createHash } from 'node:crypto';
import type { PushSubscription } from '../../store/push-subscriptions';
import type { Channel, Notice, SendResult } from '../types';
import type { VapidKeys } from '../vapid';
import { transportFailure } from './http-outcome';

/**
 * Web Push (RFC 8030) to every subscribed browser. The `web-push` library,
 * loaded on the first send, signs the VAPID JWT and encrypts the payload
 * (aes128gcm, RFC 8291); the request goes out through the service's fetch.
 * A push service answering 404 or 410 says the subscription is gone: it is
 * removed. Devices that could not be reached for a passing reason are
 * retried; the ones already reached are not sent the notice twice.
 *
 * The payload the service worker shows: `{title, body, tag, url, severity,
 * event, epoch}`, `url` being the deep link from the app root.
 */

export interface WebPushDeps {
  subscriptions: () => PushSubscription[];
  removeSubscription: (endpoint: string) => void;
  keys: () => VapidKeys | null;
  fetch: typeof fetch;
  timeoutMs?: number;
}

/** How long a push service keeps a notice for a device that is offline. */
const TTL_S = 24 * 3600;
const URGENCY = { info: 'normal', warning: 'normal', critical: 'high' } as const;

type WebPushLib = typeof import('web-push');
let library: WebPushLib | null = null;
function webPush(): WebPushLib {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  library ??= require('web-push') as WebPushLib;
  return library;
}

type DeviceOutcome = 'sent' | 'gone' | 'retry' | 'failed';

export class WebPushChannel implements Channel {
  readonly id = 'web_push' as const;

  constructor(private readonly deps: WebPushDeps) {}

  /** `resume`: the endpoints still to reach after an earlier attempt. */
  async send(notice: Notice, resume?: unknown): Promise<SendResult> {
    const keys = this.deps.keys();
    if (!keys) return { status: 'failed', detail: 'vapid not configured' };
    const wanted = Array.isArray(resume) ? new Set(resume as string[]) : null;
    const devices = this.deps.subscriptions().filter((s) => !wanted || wanted.has(s.endpoint));
    if (devices.length === 0) return { status: 'skipped', detail: 'no device is subscribed' };
    const results = await Promise.all(devices.map((device) => this.sendTo(device, notice, keys)));
    return summarize(devices, results);
  }

  private async sendTo(
    device: PushSubscription,
    notice: Notice,
    keys: VapidKeys,
  ): Promise<{ outcome: DeviceOutcome; detail: string }> {
    let request: { endpoint: string; method: string; headers: Record<string, string>; body: Buffer | null };
    try {
      request = webPush().generateRequestDetails(
        { endpoint: device.endpoint, keys: { p256dh: device.p256dh, auth: device.auth } },
        JSON.stringify(payload(notice)),
        {
          vapidDetails: { subject: keys.subject, publicKey: keys.publicKey, privateKey: keys.privateKey },
          TTL: TTL_S,
          urgency: URGENCY[notice.severity],
          topic: topicOf(notice.tag),
          contentEncoding: 'aes128gcm',
        },
      ) as typeof request;
    } catch (err) {
      return { outcome: 'failed', detail: `the subscription cannot be used: ${(err as Error).message}` };
    }
    try {
      const response = await this.deps.fetch(request.endpoint, {
        method: request.method,
        headers: request.headers,
        body: request.body,
        signal: AbortSignal.timeout(this.deps.timeoutMs ?? 15_000),
      });
      await response.arrayBuffer();
      return classify(response.status, () => this.deps.removeSubscription(device.endpoint));
    } catch (err) {
      return { outcome: 'retry', detail: transportFailure(err, []).detail };
    }
  }
}

function payload(notice: Notice) {
  return {
    title: notice.title,
    body: notice.body,
    tag: notice.tag,
    url: notice.link,
    severity: notice.severity,
    event: notice.event,
    epoch: notice.epoch,
  };
}

/** RFC 8030 Topic: at most 32 base64url characters; a newer message with the same topic replaces a queued one. */
export function topicOf(tag: string): string {
  if (/^[A-Za-z0-9_-]{1,32}$/.test(tag)) return tag;
  return createHash('sha256').update(tag).digest('base64url').slice(0, 32);
}

function classify(status: number, remove: () => void): { outcome: DeviceOutcome; detail: string } {
  if (status >= 200 && status < 300) return { outcome: 'sent', detail: '' };
  if (status === 404 || status === 410) {
    remove();
    return { outcome: 'gone', detail: `push service answered ${status}: subscription removed` };
  }
  if (status === 429 || status >= 500) return { outcome: 'retry', detail: `push service answered ${status}` };
  return { outcome: 'failed', detail: `push service answered ${status}` };
}

function summarize(
  devices: PushSubscription[],
  results: { outcome: DeviceOutcome; detail: string }[],
): SendResult {
  const count = (o: DeviceOutcome) => results.filter((r) => r.outcome === o).length;
  const parts = [
    `${count('sent')} of ${devices.length} devices reached`,
    count('gone') ? `${count('gone')} gone and removed` : '',
    ...[
      ...new Set(results.filter((r) => r.outcome === 'failed' || r.outcome === 'retry').map((r) => r.detail)),
    ],
  ].filter(Boolean);
  const detail = parts.join('; ');
  const pending = devices.filter((_d, i) => results[i]?.outcome === 'retry').map((d) => d.endpoint);
  if (pending.length > 0) return { status: 'retry', detail, resume: pending };
  return count('sent') > 0 ? { status: 'sent', detail } : { status: 'failed', detail };
}
