// The browser build of the memory browser (ui/index.html): the same page, speaking MCP to an
// engine in the page — a BrowserMemory kept in IndexedDB — instead of a server. This module
// runs before the page's script: it sets `window.mcpMemoryCall` (a request in, its reply out)
// and `window.mcpMemoryOnChange` (other tabs' changes), and adds what only a memory in the
// browser needs to the header: which memory (?memory=name, default "demo"), exporting it
// and importing a file into it. Bundled with the page by scripts/demo.mjs.
//
// For tests: `window.demo.memory` is the BrowserMemory once open (`window.demo.opened`
// resolves to it).

import { BrowserMemory } from '../lib/browser.js';

// The engine, copied beside the bundle by scripts/demo.mjs.
const WASM = new URL('./mcp_memory_bg.wasm', import.meta.url);
const name = new URLSearchParams(location.search).get('memory') || 'demo';

const opened = BrowserMemory.open(name, { wasm: WASM, profile: 'all' });
window.demo = { memory: null, opened };
opened.then((memory) => {
  window.demo.memory = memory;
});

window.mcpMemoryCall = async (request) => {
  const replies = await (await opened).handle(request);
  const reply = replies.map((r) => JSON.parse(r)).find((r) => r.id === request.id);
  if (!reply) throw new Error(`no reply to ${request.method}`);
  return reply;
};
window.mcpMemoryOnChange = (changed) => opened.then((memory) => memory.addEventListener('change', changed));

/** Saves `data` as a file named `filename`. */
function download(filename, data, type) {
  const url = URL.createObjectURL(new Blob([data], { type }));
  const link = Object.assign(document.createElement('a'), { href: url, download: filename });
  link.click();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** The header's memory controls: its name (opens another), export and import. */
function controls() {
  const el = (tag, props = {}, ...children) => {
    const node = Object.assign(document.createElement(tag), props);
    node.append(...children);
    return node;
  };
  const status = (text) => {
    document.getElementById('status').textContent = text;
  };
  const pick = el('input', { id: 'memory-name', value: name, size: 10, ariaLabel: 'memory name' });
  const open = el('form', { id: 'open-form' }, pick, ' ', el('button', { textContent: 'Open' }));
  open.onsubmit = (e) => {
    e.preventDefault();
    location.search = `?memory=${encodeURIComponent(pick.value.trim())}`;
  };
  const jsonl = el('button', { id: 'export-jsonl', textContent: 'memory.jsonl' });
  jsonl.onclick = async () => download('memory.jsonl', await (await opened).exportJsonl(), 'application/jsonl');
  const log = el('button', { id: 'export-log', textContent: 'memory.mcpmem' });
  log.onclick = async () => download('memory.mcpmem', await (await opened).exportLog(), 'application/octet-stream');
  const file = el('input', { id: 'import', type: 'file', accept: '.jsonl,.mcpmem,.json' });
  file.onchange = async () => {
    const [chosen] = file.files;
    if (!chosen) return;
    try {
      const summary = await (await opened).importFile(new Uint8Array(await chosen.arrayBuffer()));
      status(`${chosen.name}: ${summary}`);
      // The import is this tab's own change: tell the page as other tabs' changes do.
      (await opened).dispatchEvent(new Event('change'));
    } catch (e) {
      status(e.message);
    }
    file.value = '';
  };
  // A bearer token means nothing here: the memory is in this browser.
  const tokenForm = document.getElementById('token-form');
  tokenForm.hidden = true;
  tokenForm.after(el('span', { id: 'memory-controls' }, open, ' Export: ', jsonl, ' ', log, ' ', el('label', {}, 'Import: ', file)));
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', controls);
else controls();
