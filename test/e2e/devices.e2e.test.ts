import fs from 'node:fs';
import path from 'node:path';
import { A11Y_AUDIT } from './helpers/a11y-audit';
import { apiCall } from './helpers/api';
import { PHONE } from './helpers/browser';
import { expect as pwExpect } from './helpers/expect';
import { useBrowserLifecycle } from './helpers/lifecycle';
import { startDemo, type Instance } from './helpers/instance';

/**
 * The Devices & Sensors page in Debian Chromium against a real demo process
 * fed one real Ecowitt upload (the GW1100B fixture: WH51 channels 1 and 2),
 * with channel 1 bound to the front lawn. The page shows the gateway, the
 * controller and both probes with their health and what they feed; binds,
 * calibrates, renames and removes a probe; it is reached from Settings and
 * from a zone page.
 */

jest.setTimeout(90_000);

const PASSKEY = '0123456789ABCDEF0123456789ABCDEF';
const CH1 = 'source:console:soil_moisture_pct:1';
const CH2 = 'source:console:soil_moisture_pct:2';
const GW1100B = fs
  .readFileSync(
    path.join(__dirname, '..', 'weather', 'ecowitt', 'fixtures', 'ecowitt-upload-sample.txt'),
    'utf8',
  )
  .split('\n')
  .find((line) => line.includes('model=GW1100B')) as string;

let instance: Instance;
const { page } = useBrowserLifecycle({
  viewport: { width: 1280, height: 900 },
  teardown: async () => {
    await instance?.stop();
  },
});

beforeAll(async () => {
  instance = await startDemo();
  const config = await apiCall<{ sources: unknown[]; zones: Record<string, Record<string, unknown>> }>(
    instance.url,
    'api/v1/config',
  );
  const zones = {
    ...config.body.zones,
    front_lawn: { ...config.body.zones.front_lawn, soil_sensor_id: CH1 },
  };
  const sources = [
    ...config.body.sources,
    { id: 'console', priority: 90, kind: 'ecowitt_ingest', config: { passkey: PASSKEY } },
  ];
  const saved = await apiCall(instance.url, 'api/v1/config', {
    method: 'PUT',
    json: { ...config.body, sources, zones },
  });
  expect(saved.status).toBe(200);
  const now = new Date().toISOString().slice(0, 19).replace('T', '+').replace(/:/g, '%3A');
  const upload = GW1100B.replace(/PASSKEY=[^&]+/, `PASSKEY=${PASSKEY}`).replace(
    /dateutc=[^&]+/,
    `dateutc=${now}`,
  );
  const ingested = await apiCall(instance.url, 'ingest/gateway', {
    method: 'POST',
    body: upload,
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  });
  expect(ingested.status).toBe(200);
});

it('is reached from Settings and from a zone page', async () => {
  const { page: p } = await page(PHONE);
  await p.goto(new URL('settings', instance.url).href);
  await p.getByRole('link', { name: 'Devices & Sensors' }).click();
  await pwExpect(p.getByRole('heading', { level: 1 })).toHaveText('Devices & Sensors');
  await p.goto(new URL('zones/front_lawn', instance.url).href);
  await p.getByRole('link', { name: 'Devices & sensors' }).click();
  await pwExpect(p.getByRole('heading', { level: 1 })).toHaveText('Devices & Sensors');
});

it('lists the gateway, the controller and both probes with health and what they feed', async () => {
  const { page: p } = await page();
  await p.goto(new URL('devices', instance.url).href);
  const ch1 = p.locator(`[data-probe="${CH1}"]`);
  await pwExpect(ch1.getByTestId('probe-reading')).toHaveText('40 %');
  await pwExpect(ch1.getByTestId('probe-feeds')).toHaveText('Front lawn');
  await pwExpect(ch1).toHaveText(/Battery\s*1\.5 V/);
  await pwExpect(p.locator(`[data-probe="${CH2}"]`).getByTestId('probe-feeds')).toHaveText('no zone');
  await pwExpect(p.locator('[data-device="console:gateway"]').getByTestId('device-feeds')).toHaveText(
    /soil_moisture_pct:1.*soil_moisture_pct:2/,
  );
  await pwExpect(
    p.locator('[data-device="controller:demo_controller"]').getByTestId('device-feeds'),
  ).toHaveText(/front_lawn/);
  await p.waitForLoadState('networkidle');
  expect((await p.evaluate(A11Y_AUDIT)) as string[]).toEqual([]);
});

it('binds, calibrates, renames and removes a probe', async () => {
  const { page: p } = await page();
  await p.goto(new URL('devices', instance.url).href);
  const ch2 = p.locator(`[data-probe="${CH2}"]`);
  await ch2.getByLabel('Bound to').selectOption('back_lawn');
  await pwExpect(ch2.getByTestId('probe-feeds')).toHaveText('Back lawn');
  const config = await apiCall<{ zones: Record<string, { soil_sensor_id?: string }> }>(
    instance.url,
    'api/v1/config',
  );
  expect(config.body.zones.back_lawn?.soil_sensor_id).toBe(CH2);

  // The probe reads 56 %: that is its wet point now; the dry point is set through the API (no dry soil at hand).
  await ch2.getByRole('button', { name: 'Set wet point now' }).click();
  await pwExpect(ch2.getByTestId('probe-calibration')).toHaveText(/wet 56 %/);

  await ch2.getByLabel('Name').fill('Back lawn probe');
  await ch2.getByRole('button', { name: 'Rename' }).click();
  await pwExpect(ch2.locator('h3')).toHaveText('Back lawn probe');

  await ch2.getByRole('button', { name: 'Remove' }).click();
  await pwExpect(ch2.getByTestId('probe-feeds')).toHaveText('no zone');
  await pwExpect(ch2.getByTestId('probe-calibration')).toHaveText(/dry — %, wet — %/);
  await pwExpect(ch2.locator('h3')).toHaveText('Soil moisture CH2');
});

it('renames the gateway and the controller by a display name; their ids stay', async () => {
  const { page: p } = await page();
  await p.goto(new URL('devices', instance.url).href);
  const gateway = p.locator('[data-device="console:gateway"]');
  await gateway.getByLabel('Name').fill('Garage console');
  await gateway.getByRole('button', { name: 'Rename' }).click();
  await pwExpect(gateway.getByTestId('device-name')).toHaveText('Garage console');
  await pwExpect(gateway).toHaveText(/console:gateway/);

  const controller = p.locator('[data-device="controller:demo_controller"]');
  await controller.getByLabel('Name').fill('Back shed valves');
  await controller.getByRole('button', { name: 'Rename' }).click();
  await pwExpect(controller.getByTestId('device-name')).toHaveText('Back shed valves');

  const config = await apiCall<{
    sources: { id: string; name?: string }[];
    controllers: { id: string; name?: string }[];
  }>(instance.url, 'api/v1/config');
  expect(config.body.sources.find((s) => s.name === 'Garage console')?.id).toBe('console');
  expect(config.body.controllers.find((c) => c.name === 'Back shed valves')?.id).toBe('demo_controller');

  // A blank name drops it: the id shows again.
  await gateway.getByLabel('Name').fill('');
  await gateway.getByRole('button', { name: 'Rename' }).click();
  await pwExpect(gateway.getByTestId('device-name')).toHaveText('console:gateway');
});
