// The memory browser over a memory in the browser (demo/, built by scripts/demo.mjs: the page
// ui/index.html with demo/main.js speaking to a BrowserMemory) in headless Chromium, read from
// the DOM: forms create and relate, another tab's change shows up, the memory exports and a
// file imports into another memory; with 5,000 entities the counts show them all while a
// search lists only its best hits and a neighbourhood draws at most 40 neighbours.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';

import { buildDemo } from '../scripts/demo.mjs';
import { launch, until } from './chromium.mjs';

let browser;

before(async () => {
  await buildDemo();
  browser = await launch();
});

after(() => browser?.close());

/** Opens the page on memory `name` in a new tab; resolves once it is ready. */
async function openDemo(name) {
  const page = await browser.context.newPage();
  page.on('pageerror', (e) => process.stderr.write(`page error: ${e.message}\n`));
  await page.goto(`${browser.base}/demo/dist/index.html?memory=${name}`);
  await page.waitForFunction(() => document.body.dataset.ready);
  assert.equal(await page.evaluate(() => document.body.dataset.ready), '1', await page.textContent('#status'));
  return page;
}

/** Clicks the download button `selector`; resolves to the file's bytes once its name is checked. */
async function downloaded(page, selector, filename) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  assert.equal(download.suggestedFilename(), filename);
  return fs.readFileSync(await download.path());
}

const texts = (page, selector) => page.$$eval(selector, (nodes) => nodes.map((n) => n.textContent));

test('forms, another tab, export and import', async () => {
  const page = await openDemo('forms');
  assert.equal(await page.textContent('#counts'), '0 entities · 0 relations · 0 observations');
  await page.fill('#new-name', 'Alice');
  await page.fill('#new-type', 'person');
  await page.fill('#new-observation', 'likes tea');
  await page.click('#entity-form button');
  await until(page, () => document.getElementById('entity-title').textContent.startsWith('Alice'));
  await page.fill('#new-name', 'Acme');
  await page.fill('#new-type', 'company');
  await page.click('#entity-form button');
  await page.fill('#rel-from', 'Alice');
  await page.fill('#rel-type', 'works_at');
  await page.fill('#rel-to', 'Acme');
  await page.click('#relation-form button');
  await until(page, () => [...document.querySelectorAll('#relations .text')].some((n) => n.textContent === '→ works_at → Acme'));
  assert.deepEqual(await texts(page, '#observations .text'), ['likes tea']);
  // Its changes, newest first: the relation, then its creation.
  const changes = await texts(page, '#entity-history .text');
  assert.equal(changes.length, 2, changes.join('|'));
  assert.match(changes[1], /^create entities: Alice/);
  assert.deepEqual((await texts(page, '#graph .node-label')).sort(), ['Acme', 'Alice']);
  assert.deepEqual((await texts(page, '#legend span')).sort(), ['company', 'person']);
  assert.equal(await page.textContent('#counts'), '2 entities · 1 relations · 1 observations');
  // The timeline names the page as the client.
  assert.ok((await texts(page, '#timeline .meta')).every((t) => t.endsWith('mcp-memory-browser')));

  // Another tab writes: this one hears it and refreshes.
  const other = await openDemo('forms');
  await other.evaluate(() => window.demo.memory.createEntities([{ name: 'Bob', entityType: 'person', observations: [] }]));
  await other.close();
  await until(page, () => document.getElementById('counts').textContent.startsWith('3 entities'));

  const jsonl = (await downloaded(page, '#export-jsonl', 'memory.jsonl')).toString();
  assert.equal(jsonl.trim().split('\n').length, 4);
  const log = await downloaded(page, '#export-log', 'memory.mcpmem');
  await page.close();

  const imported = await openDemo('imported');
  assert.equal(await imported.inputValue('#memory-name'), 'imported');
  await imported.setInputFiles('#import', { name: 'memory.mcpmem', mimeType: 'application/octet-stream', buffer: log });
  await until(imported, () => document.getElementById('counts').textContent.startsWith('3 entities · 1 relations'));
  assert.match(await imported.textContent('#status'), /^memory\.mcpmem: ./);
  await imported.close();
});

test('with 5,000 entities: counts, a search lists its best hits, a neighbourhood draws 40', async () => {
  const page = await openDemo('big');
  await page.evaluate(async () => {
    const memory = await window.demo.opened;
    for (let start = 0; start < 5000; start += 500) {
      const entities = Array.from({ length: 500 }, (_, k) => ({
        name: `Entity ${start + k}`, entityType: ['person', 'project', 'place'][(start + k) % 3],
        observations: [`sample #${(start + k) % 97} of a large memory`],
      }));
      await memory.createEntities(entities);
      await memory.createRelations(entities.map((e) => ({ from: e.name, to: 'Entity 0', relationType: 'near' })));
    }
    memory.dispatchEvent(new Event('change'));
  });
  await until(page, () => document.getElementById('counts').textContent.startsWith('5,000 entities'));
  assert.equal(await page.textContent('#counts'), '5,000 entities · 5,000 relations · 5,000 observations');
  await page.fill('#query', 'sample #42');
  await page.click('#search-form button');
  // The first screen's list (most connected, types) is there before the search's.
  await until(page, () => document.getElementById('results-more').textContent !== '');
  assert.equal(await page.textContent('#results-more'), '25 best matches');
  assert.equal(await page.locator('#results li').count(), 25);
  // The words that matched (the server's tokens: "#" is not part of one).
  assert.deepEqual(await texts(page, '#results li:first-child .snippet mark'), ['sample', '42']);

  await page.fill('#query', 'Entity 0');
  await page.click('#search-form button');
  await until(page, () => document.querySelector('#results li')?.dataset.name === 'Entity 0');
  await page.click('#results li:first-child');
  await until(page, () => document.querySelectorAll('#graph .node').length > 0);
  assert.equal(await page.locator('#graph .node').count(), 41);
  assert.equal(await page.textContent('#graph-more'), '4,959 more neighbours not drawn (4,999 in all)');
  await page.close();
});
