// Loads the engine: mcp-memory-core built with wasm-bindgen (`npm run build` writes
// dist/node/). Everything with meaning runs in it; this package only moves bytes.

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const MODULE = require.resolve('../dist/node/mcp_memory.js');

/**
 * The engine module. `fresh` loads a new WebAssembly instance (after the old one trapped,
 * its memory can no longer be trusted).
 */
export function loadEngine({ fresh = false } = {}) {
  if (fresh) delete require.cache[MODULE];
  const engine = require(MODULE);
  // $MCP_MEMORY_NOW pins the clock (milliseconds since the epoch), as in the native host:
  // tests write reproducible files.
  const pinned = process.env.MCP_MEMORY_NOW;
  if (pinned) engine.pinClock(Number(pinned));
  return engine;
}

/** The embedding table's bytes (dist/embeddings.bin), or undefined if the package has none. */
export function readEmbeddings() {
  try {
    return readFileSync(new URL('../dist/embeddings.bin', import.meta.url));
  } catch {
    return undefined;
  }
}
