// The memory browser over a memory in the browser: builds demo/dist/ — the page
// (ui/index.html) with demo/main.js bundled by esbuild and loaded before the page's own
// script, and the engine's .wasm beside them — and, unless --build-only, serves it on
// 127.0.0.1 (--port, default 8080). Needs the engine built first (npm run build).

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import * as esbuild from 'esbuild';

import { serveStatic, urlOf } from './serve.mjs';

const npmDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const demoDir = path.join(npmDir, 'demo');

/** Where the built demo goes. */
export const DEMO_DIST = path.join(demoDir, 'dist');

/** Builds the demo into DEMO_DIST (replacing what was there); resolves to DEMO_DIST. */
export async function buildDemo() {
  const wasm = path.join(npmDir, 'dist', 'web', 'mcp_memory_bg.wasm');
  if (!fs.existsSync(wasm)) throw new Error(`${wasm} is missing: run npm run build first`);
  fs.rmSync(DEMO_DIST, { recursive: true, force: true });
  await esbuild.build({
    entryPoints: [path.join(demoDir, 'main.js')],
    outfile: path.join(DEMO_DIST, 'main.js'),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    minify: true,
    sourcemap: false,
    logLevel: 'warning',
  });
  // The page, with the embedder (which sets window.mcpMemoryCall) running before its script.
  const page = fs.readFileSync(path.join(npmDir, 'ui', 'index.html'), 'utf8');
  const script = '<script type="module">';
  if (page.split(script).length !== 2) throw new Error(`ui/index.html must hold one ${script}`);
  fs.writeFileSync(
    path.join(DEMO_DIST, 'index.html'),
    page.replace(script, `<script type="module" src="./main.js"></script>\n${script}`),
  );
  // The page passes this file to BrowserMemory.open as `wasm` (a URL relative to the bundle).
  fs.copyFileSync(wasm, path.join(DEMO_DIST, 'mcp_memory_bg.wasm'));
  return DEMO_DIST;
}

if (fs.realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: { 'build-only': { type: 'boolean', default: false }, port: { type: 'string', default: '8080' } },
  });
  await buildDemo();
  if (values['build-only']) {
    process.stderr.write(`demo built in ${path.relative(process.cwd(), DEMO_DIST) || '.'}\n`);
  } else {
    const server = await serveStatic(DEMO_DIST, Number(values.port));
    process.stderr.write(`demo: ${urlOf(server)}/ (Ctrl-C to stop)\n`);
  }
}
