import fs from 'node:fs';
import path from 'node:path';
import { expect as pwExpect } from './helpers/expect';
import { apiCall, eventually } from './helpers/api';
import { PHONE } from './helpers/browser';
import { A11Y_AUDIT } from './helpers/a11y-audit';
import { useBrowserLifecycle } from './helpers/lifecycle';
import { startDemo, type Instance } from './helpers/instance';

/**
 * The web app in Debian Chromium against a real demo instance (bin/raincheck,
 * DEMO=1): live weather on the dashboard, quick run and stop of a zone, a
 * config edit refused by the server's validation and then saved, rollback.
 * The demo gets one extra weather source, an Ecowitt gateway on the ingest
 * receiver, so the test can push a reading and watch the dashboard change.
 */

jest.setTimeout(90_000);

const PASSKEY = '0123456789ABCDEF0123456789ABCDEF';
let instance: Instance;
const { page } = useBrowserLifecycle({
  teardown: async () => {
    await instance?.stop();
  },
});

function ecowittUpload(tempF: number): string {
  const sample = fs
    .readFileSync(
      // The repository's copy of the shared fixture (CI clones the repository alone).
      path.join(__dirname, '..', 'weather', 'ecowitt', 'fixtures', 'ecowitt-upload-sample.txt'),
      'utf8',
    )
    .split('\n')
    .find((line) => line.startsWith('PASSKEY='));
  if (!sample) throw new Error('the Ecowitt fixture has no upload line');
  const now = new Date().toISOString().slice(0, 19).replace('T', '+').replace(/:/g, '%3A');
  return sample
    .replace(/PASSKEY=[^&]+/, `PASSKEY=${PASSKEY}`)
    .replace(/dateutc=[^&]+/, `dateutc=${now}`)
    .replace(/(^|&)tempf=[^&]+/, `$1tempf=${tempF}`);
}

beforeAll(async () => {
  instance = await startDemo();
  const config = await apiCall<Record<string, unknown> & { sources: unknown[] }>(
    instance.url,
    'api/v1/config',
  );
  config.body.sources.push({
    id: 'yard',
    kind: 'ecowitt_ingest',
    priority: 200,
    enabled: true,
    config: { passkey: PASSKEY },
  });
  const saved = await apiCall(instance.url, 'api/v1/config', { method: 'PUT', json: config.body });
  expect(saved.status).toBe(200);
});

describe('dashboard', () => {
  it('shows live weather with unknowns as unknown and updates when the station reports', async () => {
    const { page: p } = await page();
    await p.goto(instance.url);
    const weather = p.getByRole('region', { name: 'Current weather' });
    await pwExpect(weather).toBeVisible();
    await pwExpect(p.locator('[data-live="true"]')).toBeVisible();
    await pwExpect(p.getByTestId('verdict')).not.toBeEmpty();
    await pwExpect(p.getByTestId('next-run')).not.toBeEmpty();
    await pwExpect(p.getByRole('region', { name: 'Next 7 days' })).toBeVisible();

    const posted = await apiCall(instance.url, 'ingest/gateway', {
      body: ecowittUpload(91.4),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(posted.status).toBe(200);
    // No reload: the /stream feed carries the new reading into the tile.
    await pwExpect(weather.locator('[data-field="air_temp_f"] .value')).toHaveText(/91/, { timeout: 15_000 });
    await pwExpect(weather.locator('[data-field="air_temp_f"]')).toHaveAttribute('title', /yard|ecowitt/i);
  });
});

describe('zones', () => {
  it('runs a zone for 5 minutes and stops it from its card', async () => {
    const { page: p } = await page(PHONE);
    await p.goto(new URL('zones', instance.url).href);
    const card = p.locator('article[data-zone="front_lawn"]');
    await pwExpect(card.getByTestId('zone-state')).toHaveText('Idle');
    await card.getByRole('button', { name: 'Run 5 min' }).click();
    await pwExpect(card.getByTestId('zone-state')).toHaveText('Running');
    await pwExpect(p.getByRole('status').filter({ hasText: /5 min/ }).first()).toBeVisible();
    const snapshot = await apiCall<{ zones: { slug: string; running: boolean }[] }>(
      instance.url,
      'api/v1/irrigation/snapshot',
    );
    expect(snapshot.body.zones.find((z) => z.slug === 'front_lawn')?.running).toBe(true);

    await card.getByRole('button', { name: 'Stop' }).click();
    await pwExpect(card.getByTestId('zone-state')).toHaveText('Idle');
    await eventually(async () => {
      const after = await apiCall<{ zones: { slug: string; running: boolean }[] }>(
        instance.url,
        'api/v1/irrigation/snapshot',
      );
      return after.body.zones.find((z) => z.slug === 'front_lawn')?.running === false;
    });
  });

  it('opens the zone page with its plan and run records', async () => {
    const { page: p } = await page();
    await p.goto(new URL('zones/front_lawn', instance.url).href);
    await pwExpect(p.getByRole('heading', { level: 1 })).toHaveText(/Front lawn/);
    await pwExpect(p.getByRole('region', { name: "Today's plan" })).toBeVisible();
    await pwExpect(p.getByRole('region', { name: 'Last 30 days' })).toBeVisible();
    await pwExpect(
      p.locator('table', { has: p.locator('caption', { hasText: 'Run records' }) }),
    ).toBeVisible();
  });

  it("charts the zone's soil ledger for the last 30 days and records a soaked day", async () => {
    // The demo's first start backfilled the record from its forecast provider: the ledger has 30 days.
    await eventually(async () => {
      const soil = await apiCall<{ rows: unknown[] }>(
        instance.url,
        'api/v1/irrigation/soil?zone=back_lawn&days=30',
      );
      return soil.body.rows.length === 30;
    });
    const { page: p } = await page();
    await p.goto(new URL('zones/back_lawn', instance.url).href);
    const days = p.getByRole('region', { name: 'Last 30 days' });
    const chart = days.getByRole('img', { name: /soil depletion, rain, irrigation and crop water use/ });
    await pwExpect(chart).toBeVisible();
    await pwExpect(days.getByText(/30 days on the soil ledger\./)).toBeVisible();
    await pwExpect(days.locator('canvas').first()).toBeVisible();

    // The date input's max is the service's today; a closed day shows on the chart.
    const today = (await days.getByLabel('Soaked on').getAttribute('max')) ?? '';
    const d = new Date(`${today}T12:00:00Z`);
    d.setUTCDate(d.getUTCDate() - 1);
    const yesterday = d.toISOString().slice(0, 10);
    await days.getByLabel('Soaked on').fill(yesterday);
    await days.getByRole('button', { name: 'Record' }).click();
    await pwExpect(days.getByRole('status').filter({ hasText: `soaked on ${yesterday}` })).toBeVisible();
    await pwExpect(days.getByText(/A declared soil state set 1 of these days\./)).toBeVisible();
    const soil = await apiCall<{ rows: { date_local: string; detail: { anchor: unknown } }[] }>(
      instance.url,
      'api/v1/irrigation/soil?zone=back_lawn&days=30',
    );
    expect(soil.body.rows.find((r) => r.date_local === yesterday)?.detail.anchor).toEqual({
      source: 'owner',
      depletion_mm: 0,
    });
  });
});

describe('settings', () => {
  it('shows the validation error in place, then saves, then rolls back to the earlier snapshot', async () => {
    const { page: p } = await page();
    await p.goto(new URL('settings/config', instance.url).href);
    const lat = p.getByLabel(/^Lat(itude)?\b/).first();
    await pwExpect(lat).toHaveValue('40.7');
    await lat.fill('123');
    await p.getByRole('button', { name: 'Save configuration' }).click();
    await pwExpect(p.getByRole('alert').first()).toBeVisible();
    await pwExpect(lat).toHaveAttribute('aria-invalid', 'true');
    const unchanged = await apiCall<{ deployment: { location: { lat: number } } }>(
      instance.url,
      'api/v1/config',
    );
    expect(unchanged.body.deployment.location.lat).toBe(40.7);

    await lat.fill('41.25');
    await p.getByRole('button', { name: 'Save configuration' }).click();
    await pwExpect(p.getByRole('status').filter({ hasText: 'Saved' })).toBeVisible();
    const saved = await apiCall<{ deployment: { location: { lat: number } } }>(instance.url, 'api/v1/config');
    expect(saved.body.deployment.location.lat).toBe(41.25);

    await p.getByRole('link', { name: 'Snapshots' }).click();
    // Newest first: the first snapshot is the config the save just replaced (latitude 40.7).
    await p.getByRole('button', { name: 'Show diff' }).first().click();
    await pwExpect(p.locator('.settings-diff')).toHaveText(/40\.7[\s\S]*41\.25|41\.25[\s\S]*40\.7/);
    await p.getByRole('button', { name: 'Roll back' }).first().click();
    await p.getByRole('button', { name: 'Confirm rollback' }).click();
    await pwExpect(p.getByRole('status').filter({ hasText: 'Rolled back' })).toBeVisible();
    const restored = await apiCall<{ deployment: { location: { lat: number } } }>(
      instance.url,
      'api/v1/config',
    );
    expect(restored.body.deployment.location.lat).toBe(40.7);
  });
});

describe('settings > system', () => {
  it('downloads a backup, previews and applies its restore, warns before restarting while a zone waters, downloads diagnostics', async () => {
    const { page: p } = await page();
    await p.goto(new URL('settings/system', instance.url).href);

    const [backup] = await Promise.all([
      p.waitForEvent('download'),
      p.getByRole('link', { name: 'Download backup' }).click(),
    ]);
    expect(backup.suggestedFilename()).toMatch(/^raincheck-backup-.*\.tar\.gz$/);
    const bundle = fs.readFileSync((await backup.path()) as string);
    expect([...bundle.subarray(0, 2)]).toEqual([0x1f, 0x8b]);

    await p.getByLabel('Backup, config or database file').setInputFiles((await backup.path()) as string);
    const preview = p.getByRole('region', { name: 'Restore preview' });
    await pwExpect(preview).toHaveText(/A backup of Raincheck/);
    await pwExpect(preview).toHaveText(/Configuration: the same as now/);
    await pwExpect(preview).toHaveText(/Database: [\d,]+ run records \(now [\d,]+\)/);
    await p.getByRole('button', { name: 'Apply restore' }).click();
    await pwExpect(p.getByRole('status').filter({ hasText: 'swaps in at the next restart' })).toBeVisible();

    const run = await apiCall(instance.url, 'api/v1/irrigation/action', {
      json: { kind: 'run', zone: 'front_lawn', seconds: 600 },
    });
    expect(run.status).toBe(200);
    try {
      await p.getByRole('button', { name: 'Restart service' }).click();
      const warning = p.getByRole('alert').filter({ hasText: 'watering now' });
      await pwExpect(warning).toHaveText(/Front lawn/);
      await pwExpect(p.getByRole('button', { name: 'Restart anyway' })).toBeVisible();
      await p.getByRole('button', { name: 'Cancel' }).click();
      await pwExpect(p.getByRole('button', { name: 'Restart service' })).toBeVisible();
    } finally {
      await apiCall(instance.url, 'api/v1/irrigation/action', { json: { kind: 'stop', zone: 'front_lawn' } });
    }
    const health = await apiCall(instance.url, 'api/v1/health');
    expect(health.status).toBe(200);

    const [diagnostics] = await Promise.all([
      p.waitForEvent('download'),
      p.getByRole('link', { name: 'Download diagnostics' }).click(),
    ]);
    const report = JSON.parse(fs.readFileSync((await diagnostics.path()) as string, 'utf8'));
    expect(report.service.name).toBe('raincheck');
    expect(report.restore.pending).toMatchObject({ from: 'bundle' });
  });
});

describe('accessibility basics on every page', () => {
  const PAGES = [
    '',
    'zones',
    'zones/front_lawn',
    'history',
    'tuning',
    'settings/config',
    'settings/raw',
    'settings/snapshots',
    'settings/thresholds',
    'settings/notifications',
    'settings/account',
    'settings/units',
    'settings/system',
  ];

  it.each(PAGES)(
    'page /%s: every control has a name, images have alt text, one h1, a skip link first',
    async (path) => {
      const { page: p } = await page(PHONE);
      await p.goto(new URL(path, instance.url).href);
      await pwExpect(p.getByRole('heading', { level: 1 })).toBeVisible();
      await p.waitForLoadState('networkidle');
      const findings = (await p.evaluate(A11Y_AUDIT)) as string[];
      expect(findings).toEqual([]);
      await p.keyboard.press('Tab');
      expect(await p.evaluate('document.activeElement.textContent.trim()')).toBe('Skip to content');
    },
  );
});
