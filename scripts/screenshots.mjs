// Screenshots of every page at phone (360 px) and desktop (1280 px) width
// into docs/screenshots/, from a real demo instance (and a fresh one for the
// first-run wizard and login). Run after `npm run build`: `npm run screenshots`.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT = path.join(ROOT, 'docs', 'screenshots');
const WIDTHS = { phone: { width: 360, height: 780 }, desktop: { width: 1280, height: 860 } };

async function freePort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function startService(env) {
  const port = await freePort();
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'raincheck-shots-'));
  const child = spawn(path.join(ROOT, 'bin', 'raincheck'), [], {
    env: {
      ...process.env,
      RAINCHECK_DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      LAT: '40.7',
      LON: '-74.0',
      ...env,
    },
    stdio: 'ignore',
  });
  for (let i = 0; i < 300; i++) {
    const ok = await fetch(`http://127.0.0.1:${port}/api/v1/health`)
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url: `http://127.0.0.1:${port}/`,
    stop: () => (child.kill('SIGTERM'), fs.rmSync(dataDir, { recursive: true, force: true })),
  };
}

async function shoot(browser, base, pagePath, name, { full = false } = {}) {
  for (const [label, viewport] of Object.entries(WIDTHS)) {
    // The browser in the yard's zone (New York, the demo's LAT/LON), as for someone at home.
    const context = await browser.newContext({
      viewport,
      serviceWorkers: 'block',
      timezoneId: 'America/New_York',
    });
    const page = await context.newPage();
    await page.goto(new URL(pagePath, base).href, { waitUntil: 'networkidle' });
    await page.waitForTimeout(400);
    const file = path.join(OUT, `${name}-${label}.png`);
    await page.screenshot({ path: file, fullPage: full && label === 'desktop' });
    console.log(`wrote ${path.relative(ROOT, file)}`);
    await context.close();
  }
}

fs.mkdirSync(OUT, { recursive: true });
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
  args: ['--no-sandbox'],
});
const demo = await startService({ DEMO: '1' });
const fresh = await startService({});
try {
  await shoot(browser, demo.url, './', 'dashboard', { full: true });
  await shoot(browser, demo.url, 'zones', 'zones', { full: true });
  await shoot(browser, demo.url, 'zones/front_lawn', 'zone', { full: true });
  await shoot(browser, demo.url, 'history', 'history');
  await shoot(browser, demo.url, 'settings/config', 'settings');
  await shoot(browser, demo.url, 'settings/raw', 'settings-raw');
  await shoot(browser, fresh.url, 'setup', 'wizard');
  await shoot(browser, fresh.url, 'login', 'login');
} finally {
  await browser.close();
  demo.stop();
  fresh.stop();
}
