import fs from 'node:fs';
import path from 'node:path';
import type { Browser } from 'playwright-core';

/**
 * Cumulative Layout Shift of a page load, as Lighthouse counts it (session
 * windows of layout-shift entries without recent input, the largest window):
 * the observer script (bench/lib/layout-shift-observer.js, shared with `npm
 * run bench`) runs before the page's own, the page loads and settles, then
 * the figure and the shifts behind it are read back.
 */

const OBSERVER = fs.readFileSync(
  path.join(__dirname, '..', '..', '..', 'bench', 'lib', 'layout-shift-observer.js'),
  'utf8',
);

export interface LayoutShift {
  cls: number;
  shifts: { at: number; value: number; sources: string[] }[];
}

/** Loads `url` in a fresh context at `viewport`, waits `settleMs` after the network is idle, reads CLS. */
export async function measureLayoutShift(
  browser: Browser,
  url: string,
  viewport: { width: number; height: number },
  settleMs = 3000,
): Promise<LayoutShift> {
  const context = await browser.newContext({ viewport, serviceWorkers: 'block' });
  try {
    const page = await context.newPage();
    await page.addInitScript({ content: OBSERVER });
    await page.goto(url, { waitUntil: 'networkidle' });
    await page.waitForTimeout(settleMs);
    return (await page.evaluate('window.__layoutShift()')) as LayoutShift;
  } finally {
    await context.close();
  }
}
