// The browser API in real headless Chromium (Debian's `chromium`, driven by playwright-core;
// see test/chromium.mjs): a memory survives a page reload and a browser restart, two tabs
// writing to one memory at once lose nothing and each sees every write, a memory over its
// origin's storage quota fails writes clearly and loses nothing, and the MCP SDK's client
// bundled into a page talks to a memory through MemoryTransport.

import test from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import * as esbuild from 'esbuild';

import { NPM_ROOT, ORIGIN, harness, launch } from './chromium.mjs';
import { assertCatalog, tempDir } from './helpers.mjs';

/** Makes `openMemory(name)` in the page: the tab's memory of that name, opened once. */
async function prepare(page) {
  await page.evaluate(() => {
    const open = {};
    window.openMemory = (name) => (open[name] ??= window.mcp.BrowserMemory.open(name));
  });
  return page;
}

/** Creates `count` entities named `<prefix><i>` one call at a time, all calls in flight at once. */
function writeMany(page, name, prefix, count) {
  return page.evaluate(
    async ({ name, prefix, count }) => {
      const memory = await openMemory(name);
      const calls = [];
      for (let i = 0; i < count; i++) {
        calls.push(memory.createEntities([{ name: `${prefix}${i}`, entityType: 't', observations: [`from ${prefix}`] }]));
        calls.push(memory.addObservations([{ entityName: `${prefix}${i}`, contents: [`second ${i}`] }]));
      }
      await Promise.all(calls);
    },
    { name, prefix, count },
  );
}

/** The graph of memory `name` as the page sees it. */
function graphIn(page, name) {
  return page.evaluate(async (name) => {
    const memory = await openMemory(name);
    return memory.readGraph();
  }, name);
}

test('a memory in Chromium survives a page reload and a browser restart', { timeout: 60_000 }, async () => {
  const profile = tempDir('mcp-memory-chromium-');
  let browser = await launch({ userDataDir: profile });
  try {
    const page = await prepare(await harness(browser));
    await writeMany(page, 'persist', 'e', 20);
    const written = await graphIn(page, 'persist');
    assert.equal(written.entities.length, 20);
    assert.deepEqual(written.entities[3].observations, ['from e', 'second 3']);

    await page.reload();
    await page.waitForFunction(() => window.mcp !== undefined);
    await prepare(page);
    assert.deepEqual(await graphIn(page, 'persist'), written, 'after a reload');
    await browser.close();

    browser = await launch({ userDataDir: profile });
    const again = await prepare(await harness(browser));
    assert.deepEqual(await graphIn(again, 'persist'), written, 'after a browser restart');
    assert.deepEqual(await graphIn(again, 'other'), { entities: [], relations: [] }, 'other names are other memories');
  } finally {
    await browser.close();
  }
});

test('two tabs writing to one memory at once lose nothing, each sees every write, and each hears of the other\'s', { timeout: 60_000 }, async () => {
  const browser = await launch();
  try {
    const [a, b] = [await prepare(await harness(browser)), await prepare(await harness(browser))];
    // Tab b counts the `change` events tab a's writes cause.
    await b.evaluate(async () => {
      const memory = await openMemory('shared');
      window.changes = 0;
      memory.addEventListener('change', () => window.changes++);
    });
    await Promise.all([writeMany(a, 'shared', 'a', 150), writeMany(b, 'shared', 'b', 150)]);
    const [ga, gb] = [await graphIn(a, 'shared'), await graphIn(b, 'shared')];
    assert.equal(ga.entities.length, 300);
    assert.ok(ga.entities.every((e) => e.observations.length === 2), 'every observation added landed');
    assert.deepEqual(gb, ga, 'both tabs see the same graph');
    assert.ok((await b.evaluate(() => window.changes)) > 0, 'tab b heard of tab a\'s writes');

    const c = await prepare(await harness(browser));
    assert.deepEqual(await graphIn(c, 'shared'), ga, 'a third tab opening it reads the same from IndexedDB');
  } finally {
    await browser.close();
  }
});

test('the MCP TypeScript SDK client, bundled into a page, speaks to a browser memory through MemoryTransport', { timeout: 60_000 }, async () => {
  const out = path.join(NPM_ROOT, 'test', 'pages', 'dist');
  await esbuild.build({
    entryPoints: [path.join(NPM_ROOT, 'test', 'pages', 'sdk-client.js')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    outfile: path.join(out, 'sdk-client.js'),
    logLevel: 'error',
  });
  const browser = await launch();
  try {
    const page = await browser.context.newPage();
    await page.goto(`${browser.base}/test/pages/sdk-client.html`);
    await page.waitForFunction(() => window.sdkSession !== undefined);
    const session = await page.evaluate(() =>
      window.sdkSession('sdk', [
        ['create_entities', { entities: [{ name: 'A', entityType: 'person', observations: ['likes tea'] }] }],
        ['search_nodes', { query: 'TEA' }],
        ['add_observations', { observations: [{ entityName: 'nobody', contents: ['x'] }] }],
      ]),
    );
    assert.equal(session.server.name, 'mcp-memory');
    assertCatalog(session.tools);
    const [created, found, failed] = session.results;
    assert.deepEqual(created.structuredContent.entities.map((e) => e.name), ['A']);
    assert.deepEqual(found.structuredContent.entities.map((e) => e.name), ['A']);
    assert.equal(failed.isError, true);
    assert.match(failed.content[0].text, /nobody/);
  } finally {
    await browser.close();
  }
});

test('over its storage quota a write fails saying so, nothing acknowledged is lost, and writes resume with room', { timeout: 120_000 }, async () => {
  const browser = await launch();
  try {
    const page = await prepare(await harness(browser));
    // The origin's quota as DevTools sets it ("simulate custom storage quota"): 4 MiB.
    const devtools = await page.context().newCDPSession(page);
    await devtools.send('Storage.overrideQuotaForOrigin', { origin: ORIGIN, quotaSize: 4 << 20 });
    const filled = await page.evaluate(async () => {
      const memory = await openMemory('quota');
      const acknowledged = [];
      const big = 'x'.repeat(60_000);
      const write = (name) => memory.createEntities([{ name, entityType: 't', observations: [`${name} ${big}`] }]);
      for (let i = 0; i < 1000; i++) {
        try {
          await write(`E${i}`);
          acknowledged.push(`E${i}`);
        } catch (e) {
          let again = null;
          await write('late').catch((e) => (again = e.message));
          return { acknowledged, error: e.message, again };
        }
      }
      return { acknowledged, error: null };
    });
    assert.ok(filled.error, `4 MiB never filled up (${filled.acknowledged.length} writes)`);
    assert.match(filled.error, /the memory could not be stored: .*quota/i);
    assert.match(filled.again ?? '', /quota/i, 'still full: the next write fails too');
    const names = async () => (await graphIn(page, 'quota')).entities.map((e) => e.name).sort();
    const acknowledged = [...filled.acknowledged].sort();
    assert.deepEqual(await names(), acknowledged, 'nothing unstored is in the memory');

    await devtools.send('Storage.overrideQuotaForOrigin', { origin: ORIGIN });
    await page.evaluate(async () => {
      const memory = await openMemory('quota');
      await memory.createEntities([{ name: 'after', entityType: 't', observations: ['room again'] }]);
    });
    await page.reload();
    await page.waitForFunction(() => window.mcp !== undefined);
    await prepare(page);
    assert.deepEqual(await names(), [...acknowledged, 'after'].sort(), 'stored: every acknowledged write, nothing else');
    process.stderr.write(`quota: ${acknowledged.length} writes of 60 KB stored in 4 MiB, then: ${filled.error}\n`);
  } finally {
    await browser.close();
  }
});
