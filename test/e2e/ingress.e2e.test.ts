import { apiCall } from './helpers/api';
import { expect as pwExpect } from './helpers/expect';
import { startIngressProxy, type IngressProxy } from './helpers/ingress-proxy';
import { useBrowserLifecycle } from './helpers/lifecycle';
import { startDemo, type Instance } from './helpers/instance';

/**
 * The web app under an HA-ingress-style path prefix, with sign-in required
 * and the ingress proxy trusted to name the HA user (X-Remote-User-Id): the
 * panel opens signed in without a second login, every page, link, API call
 * and the live feed stay under the prefix, and the same app reached directly
 * without the proxy asks for a login.
 */

jest.setTimeout(90_000);

const IDENTITY_HEADER = 'X-Remote-User-Id';
let instance: Instance;
let proxy: IngressProxy;
const { page } = useBrowserLifecycle({
  teardown: async () => {
    await proxy?.close();
    await instance?.stop();
  },
});

beforeAll(async () => {
  instance = await startDemo();
  const config = await apiCall<{ auth: Record<string, unknown> }>(instance.url, 'api/v1/config');
  config.body.auth = {
    ...config.body.auth,
    trusted_proxies: ['127.0.0.1/32'],
    proxy_auth_header: IDENTITY_HEADER,
  };
  expect((await apiCall(instance.url, 'api/v1/config', { method: 'PUT', json: config.body })).status).toBe(
    200,
  );
  const setup = await apiCall(instance.url, 'api/v1/auth/setup', {
    json: { username: 'owner', password: 'rain-check-correct-horse' },
  });
  expect(setup.status).toBeLessThan(300);
  proxy = await startIngressProxy(instance.port);
});

it('opens signed in through the HA identity and stays under the prefix', async () => {
  const opened = await page();
  const { page: p, context } = opened;
  await context.setExtraHTTPHeaders({ [IDENTITY_HEADER]: 'ha-user-1' });
  const requests: string[] = [];
  p.on('request', (r) => requests.push(new URL(r.url()).pathname));

  await p.goto(proxy.url);
  await pwExpect(p.getByRole('region', { name: 'Current weather' })).toBeVisible();
  await pwExpect(p.locator('[data-live="true"]')).toBeVisible();

  await p.getByRole('link', { name: 'Zones' }).click();
  expect(new URL(p.url()).pathname).toBe(`${proxy.prefix}/zones`);
  const card = p.locator('article[data-zone="back_lawn"]');
  await card.getByRole('button', { name: 'Run 10 min' }).click();
  await pwExpect(card.getByTestId('zone-state')).toHaveText('Running');
  await card.getByRole('button', { name: 'Stop' }).click();
  await pwExpect(card.getByTestId('zone-state')).toHaveText('Idle');

  // A deep link (a Web Push notice opens /zones/<slug>) loads under the prefix too.
  await p.goto(`${proxy.url}zones/front_lawn`);
  await pwExpect(p.getByRole('heading', { level: 1 })).toHaveText(/Front lawn/);

  expect(requests.length).toBeGreaterThan(5);
  expect(requests.filter((path) => !path.startsWith(`${proxy.prefix}/`))).toEqual([]);
});

it('says when the live feed drops and reconnects by itself when the service is back', async () => {
  const opened = await page();
  const { page: p, context } = opened;
  await context.setExtraHTTPHeaders({ [IDENTITY_HEADER]: 'ha-user-1' });
  await p.goto(`${proxy.url}zones`);
  await pwExpect(p.locator('[data-live="true"]')).toBeVisible();

  proxy.setDown(true);
  await pwExpect(p.locator('[data-live="false"]')).toBeVisible();
  await new Promise((resolve) => setTimeout(resolve, 1500));
  proxy.setDown(false);
  await pwExpect(p.locator('[data-live="true"]')).toBeVisible({ timeout: 20_000 });

  // The reconnected feed carries changes again: a run started elsewhere shows up without a reload.
  const run = await apiCall(instance.url, 'api/v1/irrigation/action', {
    json: { kind: 'run', zone: 'front_lawn', seconds: 300 },
    headers: { [IDENTITY_HEADER]: 'ha-user-1' },
  });
  expect(run.status).toBe(200);
  const card = p.locator('article[data-zone="front_lawn"]');
  await pwExpect(card.getByTestId('zone-state')).toHaveText('Running');
  await card.getByRole('button', { name: 'Stop' }).click();
  await pwExpect(card.getByTestId('zone-state')).toHaveText('Idle');
});

it('asks for a login when the app is reached without the ingress identity', async () => {
  const opened = await page();
  await opened.page.goto(proxy.url);
  await pwExpect(opened.page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  expect(new URL(opened.page.url()).pathname).toBe(`${proxy.prefix}/login`);
});
