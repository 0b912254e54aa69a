import type { Locator } from 'playwright-core';

/**
 * Retrying assertions on page elements (playwright-core has no test runner's
 * `expect`): each polls until the condition holds or the timeout passes, then
 * fails with what it last saw.
 */

const DEFAULT_TIMEOUT_MS = 10_000;

interface Options {
  timeout?: number;
}

async function poll(
  locator: Locator,
  describe: string,
  read: () => Promise<string | boolean | null>,
  ok: (seen: string | boolean | null) => boolean,
  options: Options = {},
): Promise<void> {
  const deadline = Date.now() + (options.timeout ?? DEFAULT_TIMEOUT_MS);
  for (;;) {
    const seen = await read().catch(() => null);
    if (ok(seen)) return;
    if (Date.now() > deadline) {
      // What the page showed, so a failure in CI says why without a screenshot.
      const page = locator.page();
      const text = await page
        .locator('body')
        .innerText()
        .catch(() => '');
      throw new Error(
        `expected ${describe}; last seen: ${JSON.stringify(seen)}\n` +
          `page ${page.url()} shows:\n${text.replace(/\n{2,}/g, '\n').slice(0, 1500)}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const matches = (expected: string | RegExp) => (seen: string | boolean | null) =>
  typeof seen === 'string' && (typeof expected === 'string' ? seen.trim() === expected : expected.test(seen));

export function expect(locator: Locator) {
  const first = locator.first();
  return {
    toBeVisible: (options?: Options) =>
      poll(
        locator,
        `${locator} to be visible`,
        () => first.isVisible(),
        (v) => v === true,
        options,
      ),
    toBeHidden: (options?: Options) =>
      poll(
        locator,
        `${locator} to be hidden`,
        () => first.isVisible(),
        (v) => v === false,
        options,
      ),
    toHaveText: (expected: string | RegExp, options?: Options) =>
      poll(
        locator,
        `${locator} to have text ${expected}`,
        () => first.innerText(),
        matches(expected),
        options,
      ),
    toHaveValue: (expected: string | RegExp, options?: Options) =>
      poll(
        locator,
        `${locator} to have value ${expected}`,
        () => first.inputValue(),
        matches(expected),
        options,
      ),
    toHaveAttribute: (name: string, expected: string | RegExp, options?: Options) =>
      poll(
        locator,
        `${locator} to have ${name}=${expected}`,
        () => first.getAttribute(name),
        matches(expected),
        options,
      ),
    toHaveCount: (expected: number, options?: Options) =>
      poll(
        locator,
        `${locator} to match ${expected} element(s)`,
        async () => String(await locator.count()),
        (v) => v === String(expected),
        options,
      ),
    not: {
      toBeEmpty: (options?: Options) =>
        poll(
          locator,
          `${locator} to have text`,
          () => first.innerText(),
          (v) => typeof v === 'string' && v.trim() !== '',
          options,
        ),
    },
  };
}
