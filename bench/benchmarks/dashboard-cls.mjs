import { existsSync, readFileSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { makeTempDir, removeTempDir, spawnService, stopChild, waitFor200 } from '../lib/harness.mjs';

/**
 * Cumulative Layout Shift of the dashboard as Lighthouse counts it (the
 * observer in ../lib/layout-shift-observer.js, which the e2e run uses too),
 * loading the demo in Debian Chromium at phone and desktop size. The figure
 * is the worse of the two.
 */

const OBSERVER = readFileSync(new URL('../lib/layout-shift-observer.js', import.meta.url), 'utf8');
const VIEWPORTS = [
  ['phone', { width: 360, height: 780 }],
  ['desktop', { width: 1280, height: 860 }],
];
const SETTLE_MS = 3000;

function chromiumPath() {
  const found = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find(
    (p) => p && existsSync(p),
  );
  if (!found)
    throw new Error('Chromium not found: install the Debian package `chromium` or set CHROMIUM_PATH');
  return found;
}

async function measure(browser, url, viewport) {
  const context = await browser.newContext({ viewport, serviceWorkers: 'block' });
  try {
    const page = await context.newPage();
    await page.addInitScript({ content: OBSERVER });
    await page.goto(url, { waitUntil: 'networkidle' });
    await page.waitForTimeout(SETTLE_MS);
    return await page.evaluate('window.__layoutShift()');
  } finally {
    await context.close();
  }
}

export default {
  name: 'dashboard-cls',
  title: 'dashboard Cumulative Layout Shift (Lighthouse session windows), demo, phone and desktop',
  budget: { metric: 'CLS, worse viewport', better: 'lower', limit: 0.1, unit: '' },

  async run(report) {
    const dir = makeTempDir();
    const service = await spawnService(dir, { RAINCHECK_MDNS: '0' });
    const browser = await chromium.launch({
      executablePath: chromiumPath(),
      args: ['--no-sandbox', '--disable-dev-shm-usage'],
    });
    try {
      await waitFor200(service, '/api/v1/health');
      let worst = 0;
      for (const [name, viewport] of VIEWPORTS) {
        const { cls, shifts } = await measure(browser, `${service.baseUrl}/`, viewport);
        worst = Math.max(worst, cls);
        const top = shifts
          .filter((s) => s.value >= 0.005)
          .map((s) => `${s.value.toFixed(3)} at ${s.at} ms (${s.sources.join(', ')})`);
        report(
          `${name} ${viewport.width}x${viewport.height}`,
          `CLS ${cls.toFixed(3)}${top.length ? `; ${top.join('; ')}` : ''}`,
        );
      }
      return { value: worst, display: `CLS ${worst.toFixed(3)}` };
    } finally {
      await browser.close();
      await stopChild(service);
      removeTempDir(dir);
    }
  },
};
