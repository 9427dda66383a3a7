// Real headless Chromium for the browser tests, the scenario bridge and the browser bench:
// Debian's `chromium` (or $CHROMIUM) driven by playwright-core. Pages load npm/'s files from
// one fixed origin (http://mcp-memory.localhost, answered from disk by a route), as a site
// would; IndexedDB is per origin, so a kept profile finds its memories again.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

import { fileFor } from '../scripts/serve.mjs';

/** The npm package's directory (served as the site root). */
export const NPM_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The origin pages are loaded from. */
export const ORIGIN = 'http://mcp-memory.localhost';

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
 * kept one for IndexedDB that outlives the browser). Resolves to `{ context, base, close }`:
 * `base` is the site's URL (npm/ is its root), `close()` stops the browser.
 */
export async function launch({ userDataDir } = {}) {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`Chromium is missing at ${CHROMIUM}: apt-get install chromium, or set CHROMIUM`);
  }
  const dir = userDataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-memory-chromium-'));
  const context = await chromium.launchPersistentContext(dir, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
  });
  await context.route(`${ORIGIN}/**`, (route) => {
    const found = fileFor(NPM_ROOT, new URL(route.request().url()).pathname);
    if (!found) return route.fulfill({ status: 404, body: 'not found' });
    return route.fulfill({ path: found.file, contentType: found.type, headers: { 'cache-control': 'no-store' } });
  });
  return {
    context,
    base: ORIGIN,
    async close() {
      await context.close();
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

/** Waits until `fn(arg)` holds in the page; a timeout names what the page's #status line said. */
export async function until(page, fn, arg) {
  try {
    await page.waitForFunction(fn, arg, { timeout: 10_000 });
  } catch (e) {
    throw new Error(`${e.message}; the page said: ${await page.textContent('#status')}`);
  }
}

/** The pairs of labels of a page's neighbourhood drawing (nodes', relations') whose boxes intersect. */
export function crossingLabels(page) {
  return page.$$eval('#graph .node-label, #graph .edge-label', (labels) => {
    const boxes = labels.map((t) => {
      const { x, y, width, height } = t.getBBox();
      return { text: t.textContent, x, y, width, height };
    });
    const out = [];
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const [a, b] = [boxes[i], boxes[j]];
        if (a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height) out.push(`${a.text} / ${b.text}`);
      }
    }
    return out;
  });
}
