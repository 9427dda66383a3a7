// The memory browser as an MCP Apps page, in headless Chromium: a host page (the test
// harness) reads ui://mcp-memory/browser from a BrowserMemory, shows it in a sandboxed frame
// and passes the frame's requests (after ui/initialize) to the same memory, as an MCP client
// that renders MCP Apps does with its server. The frame's DOM is read: it searches and shows
// an entity through the host.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';

import { harness, launch } from './chromium.mjs';

let browser;

before(async () => {
  browser = await launch();
});

after(() => browser?.close());

test('a client shows the memory browser from its UI resource and answers its requests', async () => {
  const page = await harness(browser);
  const seen = await page.evaluate(async () => {
    const memory = await window.mcp.BrowserMemory.open('apps', { profile: 'default' });
    await memory.createEntities([
      { name: 'Ada Lovelace', entityType: 'person', observations: ['wrote the first program'] },
      { name: 'Analytical Engine', entityType: 'machine', observations: [] },
    ]);
    await memory.createRelations([{ from: 'Ada Lovelace', to: 'Analytical Engine', relationType: 'programmed' }]);
    const call = async (message) => JSON.parse((await memory.handle(message)).at(-1));
    // What a client that renders MCP Apps does: it declared the extension, lists the
    // resource, reads it and shows it in a sandboxed frame.
    await call({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25',
      capabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } },
      clientInfo: { name: 'apps-host', version: '1' } } });
    const listed = await call({ jsonrpc: '2.0', id: 2, method: 'resources/list' });
    const ui = listed.result.resources.find((r) => r.mimeType === 'text/html;profile=mcp-app');
    const read = await call({ jsonrpc: '2.0', id: 3, method: 'resources/read', params: { uri: ui.uri } });
    const methods = [];
    window.addEventListener('message', async (event) => {
      const message = event.data;
      if (message?.jsonrpc !== '2.0') return;
      methods.push(message.method);
      if (message.id === undefined) return;
      const reply = message.method === 'ui/initialize'
        ? { jsonrpc: '2.0', id: message.id, result: { protocolVersion: '2026-01-26', hostInfo: { name: 'apps-host', version: '1' }, hostCapabilities: {}, hostContext: {} } }
        : await call(message);
      event.source.postMessage(reply, '*');
    });
    window.methods = methods;
    const frame = document.createElement('iframe');
    frame.sandbox = 'allow-scripts';
    frame.style.width = '1200px';
    frame.style.height = '800px';
    frame.srcdoc = read.result.contents[0].text;
    document.body.append(frame);
    return { uri: ui.uri };
  });
  assert.equal(seen.uri, 'ui://mcp-memory/browser');
  const frame = page.frameLocator('iframe');
  await frame.locator('body[data-ready="1"]').waitFor();
  assert.equal(await frame.locator('#token-form').isHidden(), true);
  await frame.locator('#query').fill('program');
  await frame.locator('#search-form button').click();
  await frame.locator('#results li').first().waitFor({ timeout: 5000 }).catch(async () => assert.fail(await frame.locator('#status').textContent()));
  await frame.locator('#results li').first().click();
  await frame.locator('#graph .node-label', { hasText: 'Analytical Engine' }).waitFor();
  assert.deepEqual(await frame.locator('#observations .text').allTextContents(), ['wrote the first program']);
  assert.ok((await frame.locator('#timeline li').count()) >= 2);
  const methods = await page.evaluate(() => window.methods);
  assert.equal(methods[0], 'ui/initialize');
  assert.equal(methods[1], 'ui/notifications/initialized');
  assert.ok(methods.includes('tools/call'));
  await page.close();
});
