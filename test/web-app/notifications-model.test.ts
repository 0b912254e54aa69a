import { createECDH } from 'node:crypto';
import {
  applicationServerKey,
  routeChange,
  testLine,
} from '../../web/app/pages/settings/notifications-model';

/** Settings > Notifications: the subscribe key, the test result lines and the routing update. */

describe('applicationServerKey', () => {
  it('turns the base64url VAPID key into the 65 bytes of the P-256 point', () => {
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    const point = ecdh.getPublicKey();
    const bytes = applicationServerKey(point.toString('base64url'));
    expect(Buffer.from(bytes)).toEqual(point);
    expect(bytes.byteLength).toBe(65);
  });
});

describe('testLine', () => {
  it.each([
    ['sent', '1 of 1 devices reached', 'Web Push: sent (1 of 1 devices reached).'],
    ['skipped', 'no device is subscribed', 'Web Push: nothing sent, no device is subscribed.'],
    ['retry', 'HTTP 503', 'Web Push: not delivered (HTTP 503); real notices are retried when this happens.'],
    ['failed', 'HTTP 401: unauthorized', 'Web Push: failed (HTTP 401: unauthorized).'],
  ] as const)('reads %s as the owner would', (status, detail, line) => {
    expect(testLine({ channel: 'web_push', status, detail }, 'Web Push')).toBe(line);
  });
});

it('routeChange sends only the one choice that changed', () => {
  expect(routeChange('skip_today', 'email', true)).toEqual({ routes: { skip_today: { email: true } } });
});
