import fs from 'node:fs';
import path from 'node:path';
import { apiCall } from './helpers/api';
import { PHONE } from './helpers/browser';
import { expect as pwExpect } from './helpers/expect';
import { useBrowserLifecycle } from './helpers/lifecycle';
import { startInstance, type Instance } from './helpers/instance';

/**
 * A fresh install (no config, no account) in Debian Chromium: the first-run
 * wizard writes a working config and creates the owner account, sign-in is
 * then required, a wrong password is refused in place, and an API token made
 * in Settings is shown once and works as a bearer credential.
 */

jest.setTimeout(120_000);

const OWNER = { username: 'owner', password: 'rain-check-correct-horse' };
let instance: Instance;
const { page } = useBrowserLifecycle({
  teardown: async () => {
    await instance?.stop();
  },
});

beforeAll(async () => {
  instance = await startInstance({ DRY_RUN: '1' });
});

it('walks the wizard to a working config and a signed-in owner', async () => {
  const opened = await page(PHONE);
  const p = opened.page;
  // A fresh install has no config: opening the app lands in the wizard.
  await p.goto(instance.url);
  await pwExpect(p.getByRole('navigation', { name: 'Setup steps' })).toBeVisible();
  expect(new URL(p.url()).pathname).toBe('/setup');
  const next = () => p.getByRole('button', { name: 'Next' }).click();

  await pwExpect(p.getByRole('navigation', { name: 'Setup steps' })).toBeVisible();
  await pwExpect(p.getByRole('heading', { name: 'Location' })).toBeVisible();
  await p.getByLabel('Latitude').fill('40.7128');
  await p.getByLabel('Longitude').fill('-74.006');
  await next();

  await pwExpect(p.getByRole('heading', { name: 'Weather sources' })).toBeVisible();
  await next();

  await pwExpect(p.getByRole('heading', { name: 'Controller' })).toBeVisible();
  await p.getByLabel('Controller kind').selectOption('dry_run');
  await p.getByRole('button', { name: 'Test controller' }).click();
  await pwExpect(
    p
      .getByRole('status')
      .filter({ hasText: /reachable/i })
      .first(),
  ).toBeVisible();
  await next();

  await pwExpect(p.getByRole('heading', { name: 'Zones' })).toBeVisible();
  if ((await p.getByLabel('Name').count()) === 0) await p.getByRole('button', { name: 'Add zone' }).click();
  await p.getByLabel('Name').first().fill('Front lawn');
  await p.getByLabel('Area (sq ft)').first().fill('600');
  await next();

  await pwExpect(p.getByRole('heading', { name: 'Owner account' })).toBeVisible();
  await p.getByLabel('Username').fill(OWNER.username);
  await p.getByLabel('Password', { exact: true }).fill(OWNER.password);
  await p.getByLabel('Confirm password').fill(OWNER.password);
  await next();

  await pwExpect(p.getByRole('heading', { name: 'Review' })).toBeVisible();
  await p.getByRole('button', { name: 'Apply' }).click();
  await pwExpect(p.getByRole('region', { name: 'Current weather' })).toBeVisible({ timeout: 20_000 });

  // The config on disk is the wizard's: location and the zone, and sign-in is now required.
  const toml = fs.readFileSync(path.join(instance.dataDir, 'config.toml'), 'utf8');
  expect(toml).toMatch(/lat = 40\.7128/);
  expect(toml).toMatch(/Front lawn/);
  const status = await apiCall<{ mode: string; setup_complete: boolean }>(instance.url, 'api/v1/auth/status');
  expect(status.body).toMatchObject({ mode: 'required', setup_complete: true });
  expect((await apiCall(instance.url, 'api/v1/config')).status).toBe(401);
});

it('refuses a wrong password in place, signs in, and creates a token shown once that works', async () => {
  const opened = await page();
  const p = opened.page;
  await p.goto(new URL('settings/account', instance.url).href);
  // Not signed in: the service sent the page to /login.
  await pwExpect(p.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  expect(new URL(p.url()).pathname).toBe('/login');
  await p.getByLabel('Username').fill(OWNER.username);
  await p.getByLabel('Password').fill('not-the-password');
  await p.getByRole('button', { name: 'Sign in' }).click();
  await pwExpect(p.getByRole('alert').first()).toBeVisible();
  await pwExpect(p.getByRole('alert').first()).toHaveText(/request id/i);

  await p.getByLabel('Password').fill(OWNER.password);
  await p.getByRole('button', { name: 'Sign in' }).click();
  // Signed in, the app opens the page that was asked for, not the dashboard.
  await pwExpect(p.getByLabel('Token name')).toBeVisible();
  expect(new URL(p.url()).pathname).toBe('/settings/account');
  await p.getByLabel('Token name').fill('home-assistant');
  await p.getByRole('button', { name: 'Create token' }).click();
  const shown = p.getByTestId('new-token');
  await pwExpect(shown).not.toBeEmpty();
  const token = (await shown.innerText()).trim();
  expect(token.length).toBeGreaterThan(20);
  const withToken = await apiCall(instance.url, 'api/v1/config', {
    headers: { Authorization: `Bearer ${token}` },
  });
  expect(withToken.status).toBe(200);

  // Shown once: after a reload the list names the token but never shows it again.
  await p.reload();
  await pwExpect(p.getByText('home-assistant').first()).toBeVisible();
  expect(await p.content()).not.toContain(token);
});

it('offers the controllers the LAN sweep found and fills the controller form from one', async () => {
  // A fresh install of its own: the sandbox LAN has no controller, so the sweep's answer is served
  // by the browser (the same shape GET /wizard/discover gives, docs/wizard.md#discovery).
  const fresh = await startInstance({ DRY_RUN: '1' });
  try {
    const opened = await page(PHONE);
    const p = opened.page;
    await p.route('**/wizard/discover', (route) =>
      route.fulfill({
        status: 200,
        contentType: 'application/json',
        body: JSON.stringify({
          listened_ms: 3000,
          gateways: [],
          error: null,
          controllers: [
            {
              kind: 'esphome',
              name: 'Garden Valves',
              host: '192.168.1.50',
              port: 6053,
              source: 'mdns',
              suggested_controller: { kind: 'esphome_native', config: { base_url: 'http://192.168.1.50' } },
            },
            {
              kind: 'opensprinkler',
              name: 'OpenSprinkler Backyard',
              host: '192.168.1.40',
              port: 8080,
              source: 'mdns',
              suggested_controller: { kind: 'opensprinkler', config: { host: '192.168.1.40', port: 8080 } },
            },
          ],
          controllers_note: null,
        }),
      }),
    );
    await p.goto(new URL('setup', fresh.url).href);
    await pwExpect(p.getByRole('heading', { name: 'Location' })).toBeVisible();
    await p.getByLabel('Latitude').fill('40.7128');
    await p.getByLabel('Longitude').fill('-74.006');
    await p.getByRole('button', { name: 'Next' }).click();

    // The sources step lists what answered, with the catalog's kind label and host:port.
    await pwExpect(p.getByRole('heading', { name: 'Weather sources' })).toBeVisible();
    const panel = p.getByRole('region', { name: 'On your network' });
    await pwExpect(panel).toHaveText(
      /OpenSprinkler Backyard · OpenSprinkler \(direct HTTP\) at 192\.168\.1\.40:8080/,
    );
    await pwExpect(panel).toHaveText(/Garden Valves · ESPHome \(web_server REST\) at 192\.168\.1\.50:6053/);
    await p.getByRole('button', { name: 'Next' }).click();

    await pwExpect(p.getByRole('heading', { name: 'Controller' })).toBeVisible();
    await pwExpect(p.getByLabel('Controller kind')).toHaveValue('dry_run');
    await p.getByRole('button', { name: 'Use OpenSprinkler Backyard' }).click();
    await pwExpect(p.getByLabel('Controller kind')).toHaveValue('opensprinkler');
    await pwExpect(p.getByLabel('Host')).toHaveValue('192.168.1.40');
    await pwExpect(p.getByLabel('Port')).toHaveValue('8080');
    // Never a secret: the password is the user's to type, and Next asks for it.
    await pwExpect(p.getByLabel('Device password')).toHaveValue('');
    await p.getByRole('button', { name: 'Next' }).click();
    await pwExpect(p.getByLabel('Device password')).toHaveAttribute('aria-invalid', 'true');

    await p.getByRole('button', { name: 'Use Garden Valves' }).click();
    await pwExpect(p.getByLabel('Controller kind')).toHaveValue('esphome_native');
    await pwExpect(p.getByLabel('Base URL')).toHaveValue('http://192.168.1.50');
  } finally {
    await fresh.stop();
  }
});
