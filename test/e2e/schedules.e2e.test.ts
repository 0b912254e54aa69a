import { A11Y_AUDIT } from './helpers/a11y-audit';
import { apiCall, eventually } from './helpers/api';
import { PHONE } from './helpers/browser';
import { expect as pwExpect } from './helpers/expect';
import { useBrowserLifecycle } from './helpers/lifecycle';
import { startDemo, type Instance } from './helpers/instance';

/**
 * Fixed schedules in Debian Chromium against a real demo process: an
 * override schedule for every day on the front lawn is saved through the
 * config; the Schedules page lists it, the dashboard names the zone it waters
 * today instead of the smart plan, and the page's switch turns it off (a
 * config save) after which the dashboard no longer names it. The other zones
 * run in their own evening window, which the dashboard shows from the plan.
 */

jest.setTimeout(90_000);

let instance: Instance;
const { page } = useBrowserLifecycle({
  viewport: { width: 1280, height: 900 },
  teardown: async () => {
    await instance?.stop();
  },
});

const EVERY_DAY = {
  name: 'Front by hand',
  zones: ['front_lawn'],
  weekdays: [0, 1, 2, 3, 4, 5, 6],
  start: '23:30',
  minutes: 12,
  mode: 'override',
};

/** Every zone but the schedule's runs in its own evening window (`[zones.<slug>.run_window]`). */
function withOwnWindows(zones: unknown): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(zones as Record<string, Record<string, unknown>>).map(([slug, zone]) => [
      slug,
      slug === 'front_lawn' ? zone : { ...zone, run_window: { start_at: '21:00' } },
    ]),
  );
}

interface PlanSnapshot {
  water_plan: {
    day_offset: number;
    zones: { zone: string; name: string; planned_seconds: number; run_window?: { closed?: boolean } }[];
  }[];
}

beforeAll(async () => {
  instance = await startDemo();
  const config = await apiCall<Record<string, unknown>>(instance.url, 'api/v1/config');
  const saved = await apiCall(instance.url, 'api/v1/config', {
    method: 'PUT',
    json: { ...config.body, zones: withOwnWindows(config.body.zones), schedules: [EVERY_DAY] },
  });
  expect(saved.status).toBe(200);
});

it('the dashboard names the zone an override schedule waters today', async () => {
  const { page: p } = await page();
  await p.goto(instance.url);
  await pwExpect(p.getByTestId('schedule-suppressed')).toHaveText(
    /Fixed schedules water today instead of the smart plan: .*\(Front by hand\)/,
  );
});

it("the dashboard shows the plan's own run windows: today's under the run window, each day's in the strip", async () => {
  const snapshot = await apiCall<PlanSnapshot>(instance.url, 'api/v1/irrigation/snapshot');
  const own = snapshot.body.water_plan.map((day) =>
    day.zones.filter((z) => z.planned_seconds > 0 && z.run_window !== undefined),
  );
  const firstDay = own.findIndex((zones) => zones.length > 0);
  expect(firstDay).toBeGreaterThanOrEqual(0); // the demo yard waters within the week
  const { page: p } = await page();
  await p.goto(instance.url);
  const today = own[0] ?? [];
  const list = p.getByTestId('own-run-windows');
  if (today.length === 0) await pwExpect(list).toHaveCount(0);
  for (const zone of today) {
    await pwExpect(list.locator(`[data-zone="${zone.zone}"]`)).toHaveText(
      new RegExp(
        `^${zone.name}’s own window: \\S.* – \\S.*${zone.run_window?.closed ? ' \\(passed\\)' : ''}$`,
      ),
    );
  }
  const zone = own[firstDay]?.[0];
  await pwExpect(p.locator('li.day').nth(firstDay).locator('.day-reason')).toHaveText(
    new RegExp(`${zone?.name} [^,]*\\(own window \\S.* – `),
  );
});

it('the Schedules page lists the schedule and its switch turns it off through the config', async () => {
  const { page: p } = await page(PHONE);
  await p.goto(new URL('schedules', instance.url).href);
  const card = p.locator('[data-schedule="front_by_hand"]');
  await pwExpect(card.getByRole('heading', { name: 'Front by hand' })).toBeVisible();
  await pwExpect(card).toHaveText(/Sun, Mon, Tue, Wed, Thu, Fri, Sat/);
  await pwExpect(card).toHaveText(/Override \(replaces smart watering\)/);
  await pwExpect(p.getByRole('form', { name: 'Edit schedules' })).toBeVisible();
  expect((await p.evaluate(A11Y_AUDIT)) as string[]).toEqual([]);

  await card.getByRole('switch', { name: 'Front by hand enabled' }).click();
  await pwExpect(p.getByRole('status').first()).toHaveText('Front by hand is off.');
  const config = await apiCall<{ schedules: { enabled?: boolean }[] }>(instance.url, 'api/v1/config');
  expect(config.body.schedules[0]?.enabled).toBe(false);
  await eventually(async () => {
    const snapshot = await apiCall<{ zones: { slug: string; smart_suppressed: unknown }[] }>(
      instance.url,
      'api/v1/irrigation/snapshot',
    );
    return snapshot.body.zones.find((z) => z.slug === 'front_lawn')?.smart_suppressed === null;
  });
});
