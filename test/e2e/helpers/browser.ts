import fs from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/**
 * Debian's Chromium driven by playwright-core (no bundled browser download).
 * `npm test` installs the `chromium` package when it can (scripts/test-tools.json); CHROMIUM_PATH points elsewhere.
 */

export const PHONE = { width: 360, height: 780 };
export const DESKTOP = { width: 1280, height: 860 };

export function chromiumPath(): string {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'];
  const found = candidates.find((p): p is string => Boolean(p) && fs.existsSync(p as string));
  if (!found)
    throw new Error(
      'Chromium not found: install the Debian package `chromium` (`npm test` does when it can) or set CHROMIUM_PATH',
    );
  return found;
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    args: ['--no-sandbox', '--disable-dev-shm-usage'],
  });
}

export interface WatchedPage {
  context: BrowserContext;
  page: Page;
  /** Uncaught page errors and console errors seen so far (a test asserts there are none). */
  problems: string[];
}

/** A fresh browser context (own cookies) and page that records script errors. */
export async function openPage(
  browser: Browser,
  viewport = DESKTOP,
  colorScheme: 'light' | 'dark' = 'light',
  /** The browser's IANA zone (default: the machine's). */
  timezoneId?: string,
): Promise<WatchedPage> {
  const context = await browser.newContext({
    viewport,
    colorScheme,
    serviceWorkers: 'block',
    ...(timezoneId ? { timezoneId } : {}),
  });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    // A failed API call the page handles (401 before login, an expected 422) is logged by Chromium as a
    // resource error; those are the page's business and asserted by the tests themselves.
    if (message.type() === 'error' && !/Failed to load resource/.test(message.text())) {
      problems.push(`console error: ${message.text()}`);
    }
  });
  return { context, page, problems };
}
