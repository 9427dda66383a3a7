// The memory browser (ui/index.html) in headless Chromium over a memory of 40,000 entities
// (the native server over HTTP): the first screen shows the counts, the most connected
// entities and the types with their counts; the timeline of 30 changes of 1,000 entities
// each names a few per change and counts the rest, in an answer of bounded size (the whole
// changes were megabytes); a hub's neighbourhood is drawn with no two labels crossing.
// Timing is the bench's (npm/bench/ui.mjs), not this test's.
//
// The native binary is $MCP_MEMORY_NATIVE, else ../target/release/mcp-memory (skipped without).

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import { crossingLabels, launch, until } from './chromium.mjs';
import { NPM_DIR, callModern, nativeHttp, tempDir } from './helpers.mjs';

const NATIVE = process.env.MCP_MEMORY_NATIVE
  ? path.resolve(process.env.MCP_MEMORY_NATIVE)
  : path.resolve(NPM_DIR, '..', 'target', 'release', 'mcp-memory');
const SKIP = { skip: !fs.existsSync(NATIVE) && `no native binary at ${NATIVE}` };
const ENTITIES = 40_000;
const BATCH = 1_000;
const HUB = 300;
const TYPES = ['person', 'project', 'service', 'team'];

let server;
let browser;

before(async () => {
  if (SKIP.skip) return;
  const dir = tempDir('mcp-memory-ui40k-');
  server = await nativeHttp(NATIVE, ['-f', path.join(dir, 'memory.mcpmem'), '--profile', 'all']);
  const call = (name, args) => callModern(server.url, name, args, { client: 'seeder' });
  for (let start = 0; start < ENTITIES; start += BATCH) {
    const entities = Array.from({ length: BATCH }, (_, k) => ({
      name: `Entity ${start + k}`,
      entityType: TYPES[(start + k) % 4],
      observations: [`note ${start + k}`, `follow-up ${(start + k) % 97}`],
    }));
    await call('create_entities', { entities });
  }
  const hub = Array.from({ length: HUB }, (_, k) => ({ from: `Entity ${k + 1}`, to: 'Entity 0', relationType: 'reports_to' }));
  await call('create_relations', { relations: hub });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  server?.child.kill();
});

test('the first screen and the timeline of a 40,000-entity memory, and a hub drawn without crossing labels', SKIP, async () => {
  const page = await browser.context.newPage();
  page.on('pageerror', (e) => process.stderr.write(`page error: ${e.message}\n`));
  /** Bytes of each tool's answers while the page loads, by tool. */
  const answered = {};
  page.on('response', async (r) => {
    const tool = r.request().headers()['mcp-name'];
    if (tool) (answered[tool] ??= []).push((await r.body()).length);
  });
  await page.goto(`${server.url}/`);
  await page.waitForFunction(() => document.body.dataset.ready === '1');

  assert.match(await page.textContent('#counts'), /^40,000 entities · 300 relations · 80,000 observations$/);
  const connected = await page.$$eval('#results li.connected', (lis) => lis.map((li) => li.dataset.name));
  assert.equal(connected[0], 'Entity 0');
  assert.equal(connected.length, 8);
  const types = await page.$$eval('#results li.type-count', (lis) => lis.map((li) => li.textContent));
  assert.deepEqual(types.sort(), TYPES.map((t) => `${t} 10,000`));

  const changes = await page.$$eval('#timeline li', (lis) => lis.map((li) => li.textContent));
  assert.equal(changes.length, 30);
  assert.ok(changes.some((c) => c.includes('create entities: Entity 39000, Entity 39001, Entity 39002 and 997 more')), changes[1]);
  assert.ok(changes[0].includes('create relations') && changes[0].includes('and 297 more'), changes[0]);
  // 30 changes of 1,000 entities each, three named a change: kilobytes, not megabytes.
  const history = answered.history ?? [];
  assert.equal(history.length, 1);
  assert.ok(history[0] < 64 << 10, `the timeline's answer is ${history[0]} bytes`);

  await page.click('#results li.connected[data-name="Entity 0"]');
  await until(page, () => document.querySelectorAll('#graph .node').length > 0);
  assert.match(await page.textContent('#graph-more'), /^260 more neighbours not drawn \(300 in all\)$/);
  assert.deepEqual(await crossingLabels(page), []);
  await page.close();
});
