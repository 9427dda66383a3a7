// The demo page (demo/, built by scripts/demo.mjs) in headless Chromium: edits through its
// forms, through `window.demo.memory` and from another tab show up in the drawing; the
// drawing is not blank (its screenshot is saved to the temp dir); with 5,000 entities a
// search draws only its hits and a hit's neighbourhood can be opened.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { buildDemo } from '../scripts/demo.mjs';
import { launch } from './chromium.mjs';

let browser;

before(async () => {
  await buildDemo();
  browser = await launch();
});

after(() => browser?.close());

/** Opens the demo in a new tab; resolves once it has drawn the memory. */
async function openDemo() {
  const page = await browser.context.newPage();
  page.on('pageerror', (e) => process.stderr.write(`page error: ${e.message}\n`));
  await page.goto(`${browser.base}/demo/dist/index.html`);
  await page.waitForFunction(() => document.body.dataset.ready === '1');
  return page;
}

/** Waits until the page has drawn `n` nodes. */
function drawn(page, n) {
  return page.waitForFunction((n) => document.body.dataset.drawn === String(n), n);
}

/** Clicks the download button `selector`; resolves to the file's bytes once its name is checked. */
async function downloaded(page, selector, filename) {
  const [download] = await Promise.all([page.waitForEvent('download'), page.click(selector)]);
  assert.equal(download.suggestedFilename(), filename);
  return fs.readFileSync(await download.path());
}

/** How many of a PNG's pixels differ from its most common (background) colour, and how many colours it has. */
function inkOf(page, png) {
  return page.evaluate(async (base64) => {
    const image = new Image();
    image.src = `data:image/png;base64,${base64}`;
    await image.decode();
    const canvas = new OffscreenCanvas(image.width, image.height);
    const context = canvas.getContext('2d');
    context.drawImage(image, 0, 0);
    const pixels = new Uint32Array(context.getImageData(0, 0, image.width, image.height).data.buffer);
    const counts = new Map();
    for (const p of pixels) counts.set(p, (counts.get(p) ?? 0) + 1);
    const background = Math.max(...counts.values());
    return { ink: pixels.length - background, pixels: pixels.length, colours: counts.size };
  }, png.toString('base64'));
}

test('what is created in the page, through window.demo and in another tab is drawn', async () => {
  const page = await openDemo();
  assert.equal(await page.getAttribute('body', 'data-drawn'), '0');

  await page.fill('#entity-name', 'Alice');
  await page.fill('#entity-type', 'person');
  await page.fill('#entity-observations', 'likes tea\nworks remotely');
  await page.click('#entity-form button');
  await drawn(page, 1);
  await page.fill('#entity-name', 'Acme');
  await page.fill('#entity-type', 'company');
  await page.click('#entity-form button');
  await drawn(page, 2);
  await page.fill('#relation-from', 'Alice');
  await page.fill('#relation-type', 'works_at');
  await page.fill('#relation-to', 'Acme');
  await page.click('#relation-form button');
  await page.waitForFunction(() => window.demo.cy.edges().length === 1);

  await page.evaluate(async () => {
    await window.demo.memory.createEntities([
      { name: 'Bob', entityType: 'person', observations: ['plays chess'] },
      { name: 'Lisbon', entityType: 'city', observations: [] },
    ]);
    await window.demo.memory.createRelations([
      { from: 'Bob', to: 'Acme', relationType: 'works_at' },
      { from: 'Alice', to: 'Bob', relationType: 'knows' },
    ]);
    await window.demo.refresh();
  });
  await drawn(page, 4);

  // Another tab writes: this one hears the change and redraws.
  const other = await openDemo();
  await other.evaluate(async () => {
    const carol = { name: 'Carol', entityType: 'person', observations: ['lives in Lisbon'] };
    await window.demo.memory.createEntities([carol]);
    await window.demo.memory.createRelations([{ from: 'Carol', to: 'Lisbon', relationType: 'lives_in' }]);
  });
  await other.close();
  await page.waitForFunction(() => document.body.dataset.drawn === '5' && window.demo.cy.edges().length === 4);
  assert.match(await page.textContent('#status'), /5 entities, 4 relations/);
  assert.match(await page.textContent('#note'), /whole graph/);

  // A click on a node shows it; the observation form is then aimed at it.
  const box = await page.locator('#graph').boundingBox();
  const at = await page.evaluate(() => window.demo.cy.getElementById('Alice').renderedPosition());
  await page.mouse.click(box.x + at.x, box.y + at.y);
  await page.waitForFunction(() => document.querySelector('#entity h3')?.textContent === 'Alice');
  const details = await page.textContent('#entity');
  assert.match(details, /person/);
  assert.match(details, /likes tea/);
  assert.match(details, /works_at Acme/);
  assert.equal(await page.inputValue('#observation-entity'), 'Alice');
  await page.fill('#observation-text', 'drinks oolong');
  await page.click('#observation-form button');
  await page.waitForFunction(() => document.querySelector('#entity').textContent.includes('drinks oolong'));

  const shot = path.join(os.tmpdir(), 'mcp-memory-demo.png');
  const png = await page.locator('#graph').screenshot({ path: shot });
  const { ink, pixels, colours } = await inkOf(page, png);
  process.stderr.write(`demo screenshot: ${shot} (${ink} of ${pixels} pixels drawn on, ${colours} colours)\n`);
  assert.ok(ink > 3000 && ink < pixels / 2, `${ink} of ${pixels} pixels are drawn on`);
  assert.ok(colours > 8, `only ${colours} colours`);

  // Export both formats, then import the log into a fresh memory through the file input.
  const jsonl = (await downloaded(page, '#export-jsonl', 'memory.jsonl')).toString();
  assert.equal(jsonl.trim().split('\n').length, 9);
  assert.match(jsonl, /drinks oolong/);
  const log = await downloaded(page, '#export-log', 'memory.mcpmem');
  await page.fill('#memory-name', 'imported');
  await page.click('#open-form button');
  await drawn(page, 0);
  await page.setInputFiles('#import', { name: 'memory.mcpmem', mimeType: 'application/octet-stream', buffer: log });
  await drawn(page, 5);
  assert.match(await page.textContent('#import-summary'), /^memory\.mcpmem: ./);
  assert.match(await page.textContent('#status'), /“imported”: 5 entities, 4 relations/);
  await page.close();
});

test('with 5,000 entities a search draws only its hits', async () => {
  const page = await openDemo();
  await page.fill('#memory-name', 'big');
  await page.click('#open-form button');
  await page.waitForFunction(() => document.querySelector('#status').textContent.startsWith('“big”: 0 entities'));

  await page.fill('#generate-count', '5000');
  await page.evaluate(() => {
    window.messages = [];
    new MutationObserver(() => window.messages.push(document.querySelector('#message').textContent)).observe(
      document.querySelector('#message'),
      { childList: true },
    );
  });
  await page.click('#generate');
  await page.waitForFunction(() => /^“big”: 5,000 entities/.test(document.querySelector('#status').textContent));
  await drawn(page, 300);
  const messages = await page.evaluate(() => window.messages);
  assert.ok(messages.includes('Generating: 500 / 5,000 entities…'), messages.join('\n'));
  assert.match(messages.at(-1), /^Generated 5,000 entities and [\d,]+ relations\.$/);
  assert.match(await page.textContent('#note'), /too many to draw: drawing the 300 best connected/);

  const query = 'sample #42';
  const hits = await page.evaluate(async (q) => (await window.demo.memory.searchNodes(q)).entities.length, query);
  assert.ok(hits > 1 && hits < 300, `${hits} hits`);
  await page.fill('#search', query);
  await page.click('#search-form button');
  await drawn(page, hits);
  assert.equal(await page.locator('#results li').count(), hits);
  assert.match(await page.textContent('#note'), new RegExp(`${hits} hits, all drawn`));

  // A hit clicked: it and its neighbours are drawn, and the details show it.
  const name = await page.getAttribute('#results li:first-child', 'data-name');
  const around = await page.evaluate(async (name) => {
    const { relations } = await window.demo.memory.openNodes([name]);
    return new Set([name, ...relations.flatMap((r) => [r.from, r.to])]).size;
  }, name);
  await page.click('#results li:first-child');
  await page.waitForFunction((name) => document.querySelector('#entity h3')?.textContent === name, name);
  assert.equal(await page.getAttribute('body', 'data-drawn'), String(around));
  const n = around - 1;
  assert.match(await page.textContent('#note'), new RegExp(`drawing “${name}” and ${n} of its ${n} neighbours`));
  await page.close();
});
