import type { CDPSession } from 'playwright-core';
import { expect as pwExpect } from './helpers/expect';
import { useBrowserLifecycle } from './helpers/lifecycle';
import { startDemo, type Instance } from './helpers/instance';

/**
 * Web Push in Debian Chromium: the real service worker of a real instance
 * receives a push through the DevTools protocol
 * (`ServiceWorker.deliverPushMessage`, the path a push service's message
 * takes into the worker) and shows the notice with its tag and its deep link
 * under the app's scope. The settings page shows the channel and answers
 * "Send a test" from the service.
 */

jest.setTimeout(90_000);

let instance: Instance;
const e2e = useBrowserLifecycle({
  teardown: async () => {
    await instance?.stop();
  },
});

beforeAll(async () => {
  instance = await startDemo();
});

/** The worker registration the page's app made, as DevTools lists it. */
async function registrationId(cdp: CDPSession, scope: string): Promise<string> {
  let found: string | null = null;
  cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations }) => {
    const match = registrations.find(
      (r: { scopeURL: string; isDeleted: boolean }) => r.scopeURL === scope && !r.isDeleted,
    );
    if (match) found = match.registrationId as string;
  });
  await cdp.send('ServiceWorker.enable');
  const deadline = Date.now() + 15_000;
  while (!found) {
    if (Date.now() > deadline) throw new Error(`no service worker registration for ${scope}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return found;
}

it('shows a pushed notice with its tag and deep link, and the settings page tests the channel', async () => {
  const context = e2e.track(await e2e.browser().newContext({ viewport: { width: 1280, height: 860 } }));
  const origin = new URL(instance.url).origin;
  await context.grantPermissions(['notifications'], { origin });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));

  await page.goto(`${instance.url}settings/notifications`);
  await pwExpect(page.getByRole('heading', { name: 'Channels' })).toBeVisible();
  await pwExpect(page.getByRole('button', { name: 'Notify this device' })).toBeVisible();
  await page.evaluate('navigator.serviceWorker.ready.then(() => true)');

  // "Send a test" to Web Push: the service answers that no device is subscribed yet.
  await page.getByRole('button', { name: 'Send a test to Web Push (this app on your devices)' }).click();
  await pwExpect(page.getByRole('status').filter({ hasText: 'no device is subscribed' })).toBeVisible();

  const cdp = await context.newCDPSession(page);
  const id = await registrationId(cdp, instance.url);
  const notice = {
    title: 'Front lawn may now run 90 minutes',
    body: 'Its per-run cap went from 60 to 90 minutes.',
    tag: 'cap-raised-front_lawn',
    url: '/zones/front_lawn',
    severity: 'warning',
    event: 'cap_raised',
    epoch: 1_750_000_000,
  };
  // Read through the page's registration: the worker Chrome started for the push may be a
  // new instance of it (an idle worker is stopped), which an old worker handle does not see.
  const shown = async () =>
    (await page.evaluate(`navigator.serviceWorker.ready.then((r) => r.getNotifications()).then((list) =>
      list.map((n) => ({ title: n.title, body: n.body, tag: n.tag, data: n.data }))
    )`)) as { title: string; body: string; tag: string; data: unknown }[];
  // DevTools' delivery into a worker Chrome is starting was seen dropped once in six
  // full-suite runs (nothing shown for 10 s, passing alone every time): deliver again, up to three
  // times. The same tag collapses repeats, so exactly one notice must still be shown.
  let notifications: Awaited<ReturnType<typeof shown>> = [];
  for (let attempt = 1; attempt <= 3 && notifications.length === 0; attempt += 1) {
    if (attempt > 1)
      process.stdout.write(`push e2e: no notice shown after delivery ${attempt - 1}; delivering again\n`);
    await cdp.send('ServiceWorker.deliverPushMessage', {
      origin,
      registrationId: id,
      data: JSON.stringify(notice),
    });
    const deadline = Date.now() + 5_000;
    notifications = await shown();
    while (notifications.length === 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      notifications = await shown();
    }
  }
  expect(notifications).toEqual([
    {
      title: notice.title,
      body: notice.body,
      tag: 'cap-raised-front_lawn',
      data: { url: `${instance.url}zones/front_lawn` },
    },
  ]);

  // A second notice with the same tag replaces the first on the device.
  await cdp.send('ServiceWorker.deliverPushMessage', {
    origin,
    registrationId: id,
    data: JSON.stringify({ ...notice, title: 'Front lawn may now run 120 minutes' }),
  });
  const replaced = Date.now() + 10_000;
  while ((await shown())[0]?.title !== 'Front lawn may now run 120 minutes' && Date.now() < replaced) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  expect((await shown()).map((n) => [n.title, n.tag])).toEqual([
    ['Front lawn may now run 120 minutes', 'cap-raised-front_lawn'],
  ]);
  expect(problems).toEqual([]);
});
