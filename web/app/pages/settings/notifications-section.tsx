import { useEffect, useState } from 'preact/hooks';
import { ErrorNotice } from '../../components/error-notice';
import { api } from '../../lib/api';
import { formatDateTime } from '../../lib/time';
import { useApi } from '../../lib/use-api';
import {
  applicationServerKey,
  routeChange,
  STATUS_LABEL,
  testLine,
  type ChannelId,
  type ChannelState,
  type Delivery,
  type NotifyStatus,
  type TestResult,
} from './notifications-model';

/**
 * Settings > Notifications: this device (Web Push subscribe and unsubscribe),
 * each channel's state with "Send a test", which events go to which channel,
 * and the last deliveries and failures. Channels themselves are configured
 * in the config (`[notifications.*]`); see docs/notifications.md.
 */

export function NotificationsSection() {
  const status = useApi<NotifyStatus>('notifications');
  const data = status.data;
  return (
    <section class="settings-notifications" aria-label="Notifications">
      <p class="muted settings-lead">
        Raincheck tells you when it waters, when it skips and why, and when something breaks. Channels are set
        in the configuration under <code>[notifications]</code>; here you choose what each one receives.
      </p>
      <ErrorNotice error={status.error} title="Notifications could not be loaded" />
      {status.loading && !data && <p class="loading">Loading notifications…</p>}
      {data && (
        <>
          <DeviceCard status={data} onChange={status.reload} />
          <ChannelsCard status={data} onChange={status.reload} />
          <RoutesCard status={data} onChange={status.reload} />
          <RecentCard recent={data.recent} labels={labels(data.channels)} />
        </>
      )}
    </section>
  );
}

function labels(channels: ChannelState[]): Record<string, string> {
  return Object.fromEntries(channels.map((c) => [c.id, c.label]));
}

type DeviceState = 'unsupported' | 'unknown' | 'subscribed' | 'not_subscribed';

/** The browser's push subscription for this app, if the browser can have one. */
async function currentSubscription(): Promise<PushSubscription | null | undefined> {
  if (!('serviceWorker' in navigator) || !('PushManager' in window) || !window.isSecureContext)
    return undefined;
  const registration = await navigator.serviceWorker.getRegistration();
  if (!registration) return undefined;
  return registration.pushManager.getSubscription();
}

function DeviceCard({ status, onChange }: { status: NotifyStatus; onChange: () => void }) {
  const [state, setState] = useState<DeviceState>('unknown');
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const [failure, setFailure] = useState<unknown>(null);
  useEffect(() => {
    currentSubscription()
      .then((sub) => setState(sub === undefined ? 'unsupported' : sub ? 'subscribed' : 'not_subscribed'))
      .catch(() => setState('unsupported'));
  }, []);

  const subscribe = async () => {
    setBusy(true);
    setFailure(null);
    setMessage(null);
    try {
      const permission = await Notification.requestPermission();
      if (permission !== 'granted')
        throw new Error('Notifications are blocked for this site in the browser settings.');
      const { public_key } = await api<{ public_key: string }>('push/vapid-key');
      const registration = await navigator.serviceWorker.ready;
      const subscription = await registration.pushManager.subscribe({
        userVisibleOnly: true,
        applicationServerKey: applicationServerKey(public_key),
      });
      await api('push/subscribe', { method: 'POST', json: subscription.toJSON() });
      setState('subscribed');
      setMessage('This device will be notified.');
      onChange();
    } catch (err) {
      setFailure(err);
    } finally {
      setBusy(false);
    }
  };

  const unsubscribe = async () => {
    setBusy(true);
    setFailure(null);
    setMessage(null);
    try {
      const subscription = await currentSubscription();
      if (subscription) {
        await api('push/unsubscribe', { method: 'POST', json: { endpoint: subscription.endpoint } });
        await subscription.unsubscribe();
      }
      setState('not_subscribed');
      setMessage('This device will no longer be notified.');
      onChange();
    } catch (err) {
      setFailure(err);
    } finally {
      setBusy(false);
    }
  };

  const push = status.push;
  return (
    <div class="card settings-notify-device">
      <h2>This device</h2>
      {!push.enabled && (
        <p class="muted">
          Web Push is off (<code>features.enable_push = false</code>).
        </p>
      )}
      {push.enabled && !push.vapid_configured && <p class="muted">Web Push is not available: {push.note}</p>}
      {push.enabled && push.vapid_configured && state === 'unsupported' && (
        <p class="muted">
          This browser cannot receive Web Push here (it needs a secure connection and the installed app).
        </p>
      )}
      {push.enabled && push.vapid_configured && state !== 'unsupported' && (
        <p>
          {state === 'subscribed' ? (
            <button type="button" class="button" disabled={busy} onClick={() => void unsubscribe()}>
              Stop notifying this device
            </button>
          ) : (
            <button
              type="button"
              class="button primary"
              disabled={busy || state === 'unknown'}
              onClick={() => void subscribe()}
            >
              Notify this device
            </button>
          )}
        </p>
      )}
      {push.devices !== null && (
        <p class="muted settings-small">
          {push.devices === 1 ? '1 device is' : `${push.devices} devices are`} subscribed.
        </p>
      )}
      <div role="status" aria-live="polite">
        {message && <p class="notice notice-ok settings-ok">{message}</p>}
      </div>
      <ErrorNotice error={failure} title="This device could not be changed" />
    </div>
  );
}

function ChannelsCard({ status, onChange }: { status: NotifyStatus; onChange: () => void }) {
  const [testing, setTesting] = useState<ChannelId | null>(null);
  const [result, setResult] = useState<string | null>(null);
  const [failure, setFailure] = useState<unknown>(null);

  const test = async (channel: ChannelState) => {
    setTesting(channel.id);
    setResult(null);
    setFailure(null);
    try {
      const { results } = await api<{ results: TestResult[] }>('notifications/test', {
        method: 'POST',
        json: { channel: channel.id },
      });
      setResult(results.map((r) => testLine(r, channel.label)).join(' '));
      onChange();
    } catch (err) {
      setFailure(err);
    } finally {
      setTesting(null);
    }
  };

  return (
    <div class="card">
      <h2>Channels</h2>
      <ul class="settings-channel-list">
        {status.channels.map((channel) => (
          <li key={channel.id} data-channel={channel.id}>
            <div class="settings-channel-head">
              <strong>{channel.label}</strong>{' '}
              <span class={channel.configured ? 'badge ok' : 'badge'}>
                {channel.configured ? 'On' : 'Not set up'}
              </span>
              {channel.configured && (
                <button
                  type="button"
                  class="button"
                  disabled={testing !== null}
                  onClick={() => void test(channel)}
                  aria-label={`Send a test to ${channel.label}`}
                >
                  {testing === channel.id ? 'Sending…' : 'Send a test'}
                </button>
              )}
            </div>
            {channel.note && <p class="muted settings-small">{channel.note}</p>}
            {channel.retrying && (
              <p class="settings-small">
                Retrying “{channel.retrying.title}” ({channel.retrying.attempts} attempts so far, next at{' '}
                {formatDateTime(channel.retrying.next_epoch)}): {channel.retrying.detail}
              </p>
            )}
            <DeliveryLine label="Last delivered" delivery={channel.last_sent} />
            <DeliveryLine label="Last failure" delivery={channel.last_failure} />
          </li>
        ))}
      </ul>
      {!status.links && (
        <p class="muted settings-small">
          Links in ntfy, chat and e-mail notices need the address you open Raincheck at: set{' '}
          <code>RAINCHECK_PUBLIC_URL</code>.
        </p>
      )}
      <div role="status" aria-live="polite">
        {result && <p class="notice notice-ok settings-ok">{result}</p>}
      </div>
      <ErrorNotice error={failure} title="The test was not sent" />
    </div>
  );
}

function DeliveryLine({ label, delivery }: { label: string; delivery: Delivery | null }) {
  if (!delivery) return null;
  return (
    <p class="settings-small">
      {label}: {formatDateTime(delivery.epoch)}, “{delivery.title}”
      {delivery.detail ? <span class="muted"> ({delivery.detail})</span> : null}
    </p>
  );
}

function RoutesCard({ status, onChange }: { status: NotifyStatus; onChange: () => void }) {
  const [saving, setSaving] = useState(false);
  const [failure, setFailure] = useState<unknown>(null);
  const channels = status.channels;

  const toggle = async (event: string, channel: ChannelId, on: boolean) => {
    setSaving(true);
    setFailure(null);
    try {
      await api('notifications/routes', { method: 'PUT', json: routeChange(event, channel, on) });
      onChange();
    } catch (err) {
      setFailure(err);
    } finally {
      setSaving(false);
    }
  };

  return (
    <div class="card">
      <h2>What goes where</h2>
      {!status.persisted && (
        <p class="muted">The database is unavailable: the defaults apply and cannot be changed.</p>
      )}
      <div class="settings-routes-scroll">
        <table class="settings-routes">
          <caption class="visually-hidden">Events and the channels each one is sent to</caption>
          <thead>
            <tr>
              <th scope="col">Event</th>
              {channels.map((c) => (
                <th scope="col" key={c.id}>
                  {c.label.replace(/ \(.*\)$/, '')}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {status.events.map((event) => (
              <tr key={event.id} data-event={event.id}>
                <th scope="row">
                  {event.label}
                  <span class="muted settings-small settings-route-description">{event.description}</span>
                </th>
                {channels.map((c) => (
                  <td key={c.id}>
                    <input
                      type="checkbox"
                      checked={event.routes[c.id]}
                      disabled={saving || !status.persisted}
                      aria-label={`${event.label} by ${c.label}`}
                      onChange={(e) => void toggle(event.id, c.id, (e.target as HTMLInputElement).checked)}
                    />
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <ErrorNotice error={failure} title="The choice was not saved" />
    </div>
  );
}

function RecentCard({ recent, labels }: { recent: Delivery[]; labels: Record<string, string> }) {
  return (
    <div class="card">
      <h2>Recent deliveries</h2>
      {recent.length === 0 ? (
        <p class="muted">Nothing sent yet.</p>
      ) : (
        <ol class="settings-deliveries">
          {recent.map((d, i) => (
            <li key={i} data-status={d.status}>
              <span class="settings-small">{formatDateTime(d.epoch)}</span> {labels[d.channel] ?? d.channel}:{' '}
              <strong>{STATUS_LABEL[d.status]}</strong> “{d.title}”
              {d.detail ? <span class="muted settings-small"> ({d.detail})</span> : null}
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
