import path from 'node:path';
import { DateTime } from 'luxon';
import { silentLogger } from '../../server/src/core/logger';
import { zoneFor } from '../../server/src/core/tz/zone';
import { Store } from '../../server/src/store/store';
import { ollamaHandler, startPeer } from '../advisor/llm-peers';
import type { LoopbackPeer } from '../helpers/loopback-peer';
import { A11Y_AUDIT } from './helpers/a11y-audit';
import { apiCall } from './helpers/api';
import { PHONE } from './helpers/browser';
import { expect as pwExpect } from './helpers/expect';
import { useBrowserLifecycle } from './helpers/lifecycle';
import { startDemo, type Instance } from './helpers/instance';

/**
 * The learning loop in Debian Chromium against a real demo process whose
 * database holds two weeks of recorded history (written before it starts):
 * the 60-minute default cap cut every session of the front and back lawns
 * short. The zone page applies its suggestion; the Tuning page lists the
 * zones and the scorecard, dismisses one and shows it again; the dashboard
 * shows today's explanation phrased by a loopback Ollama.
 */

jest.setTimeout(90_000);

const TZ = 'America/New_York';
let instance: Instance;
const peers: LoopbackPeer[] = [];
const { page } = useBrowserLifecycle({
  viewport: { width: 1280, height: 900 },
  teardown: async () => {
    await instance?.stop();
    for (const peer of peers.splice(0)) await peer.close();
  },
});

/** Six watered sessions per zone over the last 12 days, each needing 70..85 min against the 60-min cap. */
function seedHistory(dataDir: string): void {
  const store = Store.open(path.join(dataDir, 'raincheck.db'), silentLogger());
  const today = DateTime.now().setZone(zoneFor(TZ)).startOf('day');
  for (const zone of ['front_lawn', 'back_lawn']) {
    [12, 10, 8, 6, 4, 2].forEach((back, i) => {
      const day = today.minus({ days: back });
      const date = day.toISODate() as string;
      const start = day.set({ hour: 5 }).toSeconds();
      const sessionId = `sched-${date}-${zone}`;
      store.sessionPlans.record({
        session_id: sessionId,
        zone,
        date_local: date,
        epoch: start,
        model: 'soil',
        planned_seconds: 3600,
        uncapped_seconds: (70 + i * 3) * 60,
        session_capped: true,
        max_run_minutes: 60,
      });
      store.runs.insert({
        session_id: sessionId,
        zone,
        start_epoch: start,
        duration_s: 3600,
        skip_reason: null,
        source: 'ha_refresher',
        status: 'completed',
        controller_id: 'demo_controller',
        applied_mm: null,
        volume_gal: null,
        note: null,
        cycle_index: null,
        cycle_count: null,
      });
    });
  }
  store.close();
}

beforeAll(async () => {
  instance = await startDemo({}, seedHistory);
  const ollama = await startPeer(ollamaHandler(['llama3.1:8b'], 'Nothing needs water this morning.'), peers);
  const config = await apiCall<Record<string, unknown>>(instance.url, 'api/v1/config');
  const llm = { provider: 'ollama', base_url: ollama.baseUrl, model: 'llama3.1:8b' };
  const saved = await apiCall(instance.url, 'api/v1/config', {
    method: 'PUT',
    json: { ...config.body, llm },
  });
  expect(saved.status).toBe(200);
});

it('the zone page shows the recommendation and applies it to the config', async () => {
  const { page: p } = await page(PHONE);
  await p.goto(new URL('zones/front_lawn', instance.url).href);
  const card = p.getByTestId('zone-tuning');
  await pwExpect(card.locator('.recommendation-headline')).toHaveText(/Raise the run cap to 85 min/);
  await card.getByRole('button', { name: 'Apply' }).click();
  await pwExpect(card.getByRole('status')).toHaveText(/Saved\. Run cap: default \(60 min\) → 85 min/);
  const config = await apiCall<{ zones: Record<string, { max_run_minutes?: number }> }>(
    instance.url,
    'api/v1/config',
  );
  expect(config.body.zones.front_lawn?.max_run_minutes).toBe(85);
  // The evidence now agrees with the config.
  await pwExpect(card.locator('.tuning-entry')).toHaveAttribute('data-status', 'ok');
});

it('the Tuning page lists every zone and the scorecard; a dismissed suggestion is muted and comes back', async () => {
  const { page: p } = await page();
  await p.goto(new URL('tuning', instance.url).href);
  await pwExpect(p.getByRole('heading', { level: 1 })).toHaveText('Tuning');
  await pwExpect(p.getByTestId('scorecard')).toHaveText(/Not scored yet/);
  await pwExpect(p.locator('.tuning-entry')).toHaveCount(6);
  const back = p.locator('.tuning-entry[data-zone="back_lawn"]');
  await pwExpect(back.locator('.recommendation-headline')).toHaveText(/Raise the run cap/);
  await back.getByRole('button', { name: 'Dismiss for 30 days' }).click();
  await pwExpect(back.locator('.tuning-muted')).toHaveText(
    /^Snoozed until \d{4}-\d{2}-\d{2}: Raise the run cap/,
  );
  await pwExpect(back.locator('.recommendation')).toHaveCount(0);
  await back.getByRole('button', { name: 'Show run cap suggestions again' }).click();
  await pwExpect(back.locator('.recommendation-headline')).toHaveText(/Raise the run cap/);

  await p.waitForLoadState('networkidle');
  expect((await p.evaluate(A11Y_AUDIT)) as string[]).toEqual([]);
});

it('the dashboard shows the explanation phrased by the local model, with the engine account', async () => {
  const { page: p } = await page();
  await p.goto(instance.url);
  const explanation = p.getByTestId('explanation');
  await pwExpect(explanation).toHaveAttribute('data-source', 'llm');
  await pwExpect(explanation.locator('.explanation-text')).toHaveText('Nothing needs water this morning.');
  await pwExpect(explanation).toHaveText(/Phrased by your ollama model \(llama3\.1:8b\)/);
});
