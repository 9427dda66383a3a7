// Real headless Chromium for the browser tests, the scenario bridge and the browser bench:
// Debian's `chromium` (or $CHROMIUM) driven by playwright-core, serving npm/ over HTTP so
// pages load lib/browser.js and dist/web/ as a site would.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

import { serveStatic, urlOf } from '../scripts/serve.mjs';

/** The npm package's directory (served as the site root). */
export const NPM_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The Chromium binary: $CHROMIUM, else Debian's. */
export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';

/** Flags that work on machines without network or GPU (see shared/notes/toolchain.md). */
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Starts Chromium with the profile in `userDataDir` (a fresh temp dir by default; pass a
 * kept one for IndexedDB that outlives the browser) and a server for npm/. Resolves to
 * `{ context, base, close }`: `base` is the site's URL, `close()` stops both.
 */
export async function launch({ userDataDir } = {}) {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`Chromium is missing at ${CHROMIUM}: apt-get install chromium, or set CHROMIUM`);
  }
  const dir = userDataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-memory-chromium-'));
  const server = await serveStatic(NPM_ROOT);
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
  });
  return {
    context,
    base: urlOf(server),
    async close() {
      await context.close();
      await new Promise((resolve) => server.close(resolve));
      if (!userDataDir) fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Opens the test harness page (test/pages/harness.html: `window.mcp` is lib/browser.js)
 * in a new tab; resolves to the page once the module has loaded.
 */
export async function harness(browser) {
  const page = await browser.context.newPage();
  page.on('pageerror', (e) => process.stderr.write(`page error: ${e.message}\n`));
  await page.goto(`${browser.base}/test/pages/harness.html`);
  await page.waitForFunction(() => window.mcp !== undefined);
  return page;
}
