import { apiCall } from './helpers/api';
import { DESKTOP, PHONE } from './helpers/browser';
import { expect as pwExpect } from './helpers/expect';
import { useBrowserLifecycle } from './helpers/lifecycle';
import { startDemo, type Instance } from './helpers/instance';
import { measureLayoutShift } from './helpers/layout-shift';

/**
 * The web app tells one story (issue 18), in Debian Chromium against a real
 * demo (bin/raincheck, DEMO=1, New York): the dashboard says which zones are
 * due, held or unknown as the snapshot has them; times are the yard's on a
 * browser in Tokyo; every view is in one unit system; a pause is recorded as
 * the pause; and the dashboard's layout does not shift (CLS under 0.1).
 */

jest.setTimeout(120_000);

interface ZoneVerdict {
  zone: string;
  name: string;
  verdict: string;
  reason_code: string;
  water_need: string;
  planned_seconds: number;
}

let instance: Instance;
const e2e = useBrowserLifecycle({
  teardown: async () => {
    await instance?.stop();
  },
});
const { page } = e2e;

async function setUnits(units: 'imperial' | 'metric'): Promise<void> {
  const config = await apiCall<{ deployment: Record<string, unknown> }>(instance.url, 'api/v1/config');
  config.body.deployment.units = units;
  const saved = await apiCall(instance.url, 'api/v1/config', { method: 'PUT', json: config.body });
  expect(saved.status).toBe(200);
}

async function act(body: object): Promise<void> {
  const res = await apiCall(instance.url, 'api/v1/irrigation/action', { json: body });
  expect(res.status).toBe(200);
}

beforeAll(async () => {
  instance = await startDemo();
});

describe('layout shift', () => {
  it.each([
    ['phone', PHONE],
    ['desktop', DESKTOP],
  ])('the dashboard loads with CLS under 0.1 on a %s', async (name, viewport) => {
    const measured = await measureLayoutShift(e2e.browser(), instance.url, viewport);
    process.stdout.write(`dashboard CLS (${name}): ${measured.cls.toFixed(3)}\n`);
    expect({ cls: measured.cls, shifts: measured.cls < 0.1 ? [] : measured.shifts }).toEqual({
      cls: expect.any(Number),
      shifts: [],
    });
    expect(measured.cls).toBeLessThan(0.1);
  });
});

describe('the dashboard says where each zone stands', () => {
  it('lists each zone where the snapshot puts it, and never that no zone needs water while one does', async () => {
    const snapshot = await apiCall<{ zone_verdicts: ZoneVerdict[] }>(
      instance.url,
      'api/v1/irrigation/snapshot',
    );
    const rows = snapshot.body.zone_verdicts;
    const { page: p } = await page();
    await p.goto(instance.url);
    const standings = p.getByTestId('zone-standings');
    await pwExpect(standings).toBeVisible();
    // A due zone on a forecast bet waits for rain (docs/irrigation.md, Deciding under uncertainty).
    const waiting = new Set([
      'forecast_rain_expected',
      'rain_today_forecast',
      'rain_next_4h',
      'tomorrow_rain',
      'rain_3day',
    ]);
    const place = (r: ZoneVerdict) =>
      r.verdict === 'water' && r.planned_seconds > 0
        ? 'watering'
        : r.water_need === 'unknown'
          ? 'unknown'
          : r.water_need === 'due'
            ? waiting.has(r.reason_code)
              ? 'waiting'
              : 'held'
            : 'notDue';
    for (const row of rows) {
      const item = standings.locator(`[data-standing="${place(row)}"] li[data-zone="${row.zone}"]`);
      await pwExpect(item).toHaveText(new RegExp(row.name));
      // Each zone links to its page, where its soil state can be declared.
      await pwExpect(item.getByRole('link', { name: row.name })).toHaveAttribute(
        'href',
        new RegExp(`zones/${row.zone}$`),
      );
    }
    // Which standings the demo's day has depends on its weather cycle (the soil ledger knows every
    // zone from the backfill); the model tests (test/web-app/verdict.test.ts) hold each one. Here:
    // whenever any zone waters, is held or is unknown, the page never says no zone needs water.
    const needing = rows.filter((r) => place(r) !== 'notDue');
    await pwExpect(p.getByTestId('next-run')).not.toBeEmpty();
    if (needing.length > 0) {
      expect(await p.getByTestId('next-run').innerText()).not.toMatch(/no zone needs water/);
    }
    if (rows.some((r) => place(r) === 'unknown')) {
      await pwExpect(standings.locator('[data-standing="unknown"]')).toHaveText(/declare its soil state/);
    }
  });
});

describe('the zones page and the zone page agree with the dashboard', () => {
  it("badge each zone with the engine's standing (watering, waiting for rain, held, unknown, not due)", async () => {
    const snapshot = await apiCall<{ zone_verdicts: ZoneVerdict[] }>(
      instance.url,
      'api/v1/irrigation/snapshot',
    );
    const rows = snapshot.body.zone_verdicts;
    const { page: p } = await page();
    await p.goto(instance.url);
    const standings = p.getByTestId('zone-standings');
    await pwExpect(standings).toBeVisible();
    // Where the dashboard lists each zone.
    const dashboard = new Map<string, string>();
    for (const row of rows) {
      const group = standings
        .locator(`li[data-zone="${row.zone}"]`)
        .locator('xpath=ancestor::*[@data-standing][1]');
      const place = await group.getAttribute('data-standing');
      dashboard.set(row.zone, place === 'notDue' ? 'not_due' : (place ?? ''));
    }
    await p.goto(new URL('zones', instance.url).href);
    for (const row of rows) {
      const badge = p.locator(`article.zone-card[data-zone="${row.zone}"] [data-testid="zone-standing"]`);
      await pwExpect(badge).toHaveAttribute('data-standing', dashboard.get(row.zone) as string);
    }
    // No card says "due" off its gauge alone.
    await pwExpect(p.locator('article.zone-card .badge', { hasText: /^due$/ })).toHaveCount(0);
    const first = rows[0] as ZoneVerdict;
    await p.goto(new URL(`zones/${first.zone}`, instance.url).href);
    await pwExpect(p.locator(`[data-zone="${first.zone}"] [data-testid="zone-standing"]`)).toHaveAttribute(
      'data-standing',
      dashboard.get(first.zone) as string,
    );
  });
});

describe('one unit system per view', () => {
  it('shows imperial everywhere by default and metric everywhere once chosen, reasons included', async () => {
    const { page: p } = await page();
    await p.goto(new URL('zones', instance.url).href);
    const cards = p.locator('article.zone-card');
    await pwExpect(cards.first()).toBeVisible();
    await pwExpect(cards.first().locator('.bucket-text')).toHaveText(/in/);
    const imperial = await p.locator('main').innerText();
    expect(imperial).not.toMatch(/\d mm\b/);
    await p.goto(instance.url);
    await pwExpect(p.getByTestId('zone-standings')).toBeVisible();
    expect(await p.locator('section.today').innerText()).not.toMatch(/\d mm\b/);

    await setUnits('metric');
    try {
      await p.goto(new URL('zones', instance.url).href);
      await pwExpect(cards.first().locator('.bucket-text')).toHaveText(/mm/);
      const metric = await p.locator('main').innerText();
      expect(metric).not.toMatch(/\d in\b|\d in\/h|°F|\bmph\b/);
      await p.goto(instance.url);
      await pwExpect(p.getByTestId('zone-standings')).toBeVisible();
      const today = await p.locator('section.today').innerText();
      expect(today).not.toMatch(/\d in\b|°F|\bmph\b/);
      expect(await p.locator('section.week').innerText()).not.toMatch(/\d in\b|°F/);
      // History's decisions were written in imperial before the switch: they read in metric now.
      await p.goto(new URL('history', instance.url).href);
      // Loaded once the Refresh button is enabled again (the runs, decisions and changes have answered).
      await pwExpect(p.getByRole('button', { name: 'Refresh', exact: true })).toBeVisible();
      expect(await p.locator('main').innerText()).not.toMatch(/\d in\b|\d in\/hr|°F|\bmph\b/);
    } finally {
      await setUnits('imperial');
    }
  });
});

describe('units before the config has answered', () => {
  it('draws no figure in the other system while the config is on its way', async () => {
    await setUnits('metric');
    try {
      const { page: p } = await page();
      // The config answers last: the snapshot and forecast arrive first and would be drawn in the
      // default (imperial) system if the app drew before it knew the owner's.
      let drawnBeforeConfig: string | null = null;
      await p.route(/\/api\/v1\/config$/, async (route) => {
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        drawnBeforeConfig = await p.locator('body').innerText();
        await route.continue();
      });
      await p.goto(instance.url);
      await pwExpect(p.locator('section.week')).toHaveText(/°C/);
      expect(drawnBeforeConfig).not.toBeNull();
      expect(drawnBeforeConfig).not.toMatch(/°F|\d in\b|\bmph\b/);
    } finally {
      await setUnits('imperial');
    }
  });
});

describe("the yard's time zone", () => {
  it('shows a pause end in New York time on a browser in Tokyo, and says so', async () => {
    // Tomorrow 15:30 UTC: 10:30 in New York in winter (11:30 in summer), 00:30 the next day in Tokyo.
    const until = Math.floor(Date.now() / 86_400_000 + 1) * 86_400 + 15.5 * 3600;
    const newYork = new Intl.DateTimeFormat('en-US', {
      timeZone: 'America/New_York',
      hour: '2-digit',
      minute: '2-digit',
      hourCycle: 'h23',
    }).format(new Date(until * 1000));
    await act({ kind: 'set_pause_until', epoch: until });
    try {
      const { page: p } = await page(DESKTOP, 'Asia/Tokyo');
      await p.goto(instance.url);
      await pwExpect(p.getByTestId('yard-time')).toHaveText(/America\/New York/);
      const verdict = p.getByTestId('verdict');
      await pwExpect(verdict).toHaveText(/paused until/);
      const text = await verdict.innerText();
      const [hour, minute] = newYork.split(':').map(Number) as [number, number];
      const twelve = `${hour % 12 || 12}:${String(minute).padStart(2, '0')}`;
      expect(text).toContain(twelve);
      expect(text).toMatch(/E[SD]T/);
      expect(text).not.toMatch(/12:30 AM|00:30/);
    } finally {
      await act({ kind: 'clear_pause_until' });
    }
  });
});

describe('History names the control behind a verdict change', () => {
  it('records a pause as the pause, not as the rain rule', async () => {
    await act({ kind: 'set_pause_until', epoch: Math.floor(Date.now() / 1000) + 86_400 });
    try {
      const { page: p } = await page();
      await p.goto(new URL('history', instance.url).href);
      const table = p.locator('table', { has: p.locator('caption', { hasText: 'Verdict changes' }) });
      const paused = table.locator('tr', { has: p.locator('.badge', { hasText: /^Paused$/ }) }).last();
      await pwExpect(paused.locator('td[data-label="Reason"]')).toHaveAttribute('data-reason', 'paused');
      await pwExpect(paused.locator('td[data-label="Reason"]')).toHaveText(/Paused.*Irrigation is paused/);
    } finally {
      await act({ kind: 'clear_pause_until' });
    }
  });
});
