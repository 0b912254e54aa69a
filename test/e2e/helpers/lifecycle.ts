import type { Browser, BrowserContext } from 'playwright-core';
import { DESKTOP, launchBrowser, openPage, type WatchedPage } from './browser';

/**
 * The browser lifecycle every end-to-end file shares; call it once at the
 * top of a file. One Chromium for the file, launched before its tests. Each
 * page opened through `page()` is watched for script errors and closed after
 * its test, which fails if any page logged one; a context a test opened
 * itself (`track`) is closed after it too. After all: the browser closes,
 * then `teardown` stops what the file started (its instance, a proxy, peers).
 */

export interface BrowserLifecycle {
  /** The file's browser (once the hooks ran). */
  browser(): Browser;
  /** A watched page in a fresh context (own cookies), closed after the test. */
  page(viewport?: { width: number; height: number }, timezoneId?: string): Promise<WatchedPage>;
  /** Closes a context the test made itself after the test. */
  track(context: BrowserContext): BrowserContext;
}

export interface LifecycleOptions {
  /** The viewport `page()` opens without one (default DESKTOP). */
  viewport?: { width: number; height: number };
  /** Stops what the file started, after the browser closed. */
  teardown?: () => Promise<void>;
}

export function useBrowserLifecycle(options: LifecycleOptions = {}): BrowserLifecycle {
  let browser: Browser | null = null;
  const watched: WatchedPage[] = [];
  const contexts: BrowserContext[] = [];

  beforeAll(async () => {
    browser = await launchBrowser();
  });

  afterEach(async () => {
    const problems = watched.flatMap((w) => w.problems);
    for (const w of watched.splice(0)) await w.context.close();
    for (const context of contexts.splice(0)) await context.close();
    expect(problems).toEqual([]);
  });

  afterAll(async () => {
    await browser?.close();
    await options.teardown?.();
  });

  const launched = (): Browser => {
    if (!browser) throw new Error('the browser is launched in beforeAll: use it inside a hook or a test');
    return browser;
  };

  return {
    browser: launched,
    async page(viewport = options.viewport ?? DESKTOP, timezoneId) {
      const opened = await openPage(launched(), viewport, 'light', timezoneId);
      watched.push(opened);
      return opened;
    },
    track(context) {
      contexts.push(context);
      return context;
    },
  };
}
