#!/usr/bin/env node
// The scenario bridge: a stdio MCP server, as tests/scenarios/run.py drives one, whose memory
// is a BrowserMemory in headless Chromium. The Chromium profile lives beside
// $MEMORY_FILE_PATH (`chromium-profile/`), so the memory outlives restarts as a file would;
// at first start a reference memory file there is imported, as the native host converts it.
//
//   python3 tests/scenarios/run.py --cmd "node npm/test/scenario-bridge.mjs"

import fs from 'node:fs';
import path from 'node:path';

import { harness, launch } from './chromium.mjs';

const file = process.env.MEMORY_FILE_PATH;
if (!file) {
  process.stderr.write('scenario-bridge: MEMORY_FILE_PATH is not set\n');
  process.exit(2);
}
const userDataDir = path.join(path.dirname(path.resolve(file)), 'chromium-profile');
const firstStart = !fs.existsSync(userDataDir);
// Lines are read as the hosts read them: invalid UTF-8 becomes U+FFFD.
const decoder = new TextDecoder();

const browser = await launch({ userDataDir });
const page = await harness(browser);
// A Buffer would reach the page as a plain object: the file goes as a Uint8Array.
const reference = firstStart && fs.existsSync(file) ? new Uint8Array(fs.readFileSync(file)) : null;
// The tool profile comes from the environment, as the command lines read it.
const settings = { profile: process.env.MCP_MEMORY_PROFILE, tools: process.env.MCP_MEMORY_TOOLS };
const imported = await page.evaluate(async ({ bytes, settings }) => {
  window.memory = await window.mcp.BrowserMemory.open('scenario', settings);
  return bytes && window.memory.importFile(bytes);
}, { bytes: reference, settings });
if (imported) process.stderr.write(`scenario-bridge: imported ${file}: ${imported}\n`);

/** Answers one line (without its \n): one \r before the \n is dropped, as the hosts do. */
async function answer(line) {
  if (line[line.length - 1] === 0x0d) line = line.subarray(0, line.length - 1);
  const replies = await page.evaluate((text) => window.memory.handle(text), decoder.decode(line));
  for (const reply of replies) process.stdout.write(reply + '\n');
}

/** Closes the memory and the browser, then exits with `code`. */
async function finish(code) {
  await page.evaluate(() => window.memory.close()).catch(() => {});
  await browser.close();
  process.exit(code);
}

process.stdout.on('error', (e) => {
  // The client closed its end: the session is over.
  if (e.code !== 'EPIPE') throw e;
  finish(0);
});

try {
  // Lines strictly in order: the next is read only once the previous one's replies are out.
  let pending = Buffer.alloc(0);
  for await (const chunk of process.stdin) {
    pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    let start = 0;
    for (let at; (at = pending.indexOf(0x0a, start)) >= 0; start = at + 1) {
      await answer(pending.subarray(start, at));
    }
    pending = pending.subarray(start);
  }
  if (pending.length) await answer(pending);
} catch (e) {
  process.stderr.write(`scenario-bridge: error: ${e.stack ?? e}\n`);
  await finish(1);
}
await finish(0);
