// Builds the engine: cargo (host-web for wasm32-unknown-unknown), wasm-bindgen (the CLI must
// be the crate's exact version) into dist/node/ (--target nodejs, for the Node API and CLI)
// and dist/web/ (--target web, ES module for browsers and bundlers), then wasm-opt (npm
// `binaryen`) to shrink each. Prints the sizes.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { fileURLToPath } from 'node:url';

const npmDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const root = path.resolve(npmDir, '..');
const dist = path.join(npmDir, 'dist');
const WASM_BINDGEN_VERSION = '0.2.130';

function run(cmd, args, options = {}) {
  process.stderr.write(`$ ${cmd} ${args.join(' ')}\n`);
  return execFileSync(cmd, args, { stdio: ['ignore', 'pipe', 'inherit'], ...options }).toString();
}

const bindgenVersion = run('wasm-bindgen', ['--version']).trim();
if (!bindgenVersion.endsWith(` ${WASM_BINDGEN_VERSION}`)) {
  throw new Error(
    `wasm-bindgen ${WASM_BINDGEN_VERSION} is needed (found '${bindgenVersion}'): ` +
      `cargo install wasm-bindgen-cli --version ${WASM_BINDGEN_VERSION}`,
  );
}

// Where cargo puts things: its target directory may be elsewhere (CARGO_TARGET_DIR, a config).
const { target_directory: targetDir } = JSON.parse(
  run('cargo', ['metadata', '--format-version', '1', '--no-deps', '--locked'], { cwd: root }),
);
// Into the target directory of the native binary's component (host-native/build.rs): both
// are the core for wasm32 in the `wasm` profile, so the core and its dependencies are
// compiled once for both.
const wasmTarget = path.join(targetDir, 'component');
run(
  'cargo',
  ['build', '--locked', '-p', 'mcp-memory-web', '--target', 'wasm32-unknown-unknown', '--profile', 'wasm',
    '--target-dir', wasmTarget],
  { cwd: root },
);
const built = path.join(wasmTarget, 'wasm32-unknown-unknown', 'wasm', 'mcp_memory_web.wasm');

fs.rmSync(dist, { recursive: true, force: true });
// The embedding table semantic search reads: beside the engines, loaded on the first search
// by meaning (Node reads the file; browsers fetch it).
fs.mkdirSync(dist, { recursive: true });
fs.copyFileSync(path.join(root, 'core', 'embeddings', 'table.bin'), path.join(dist, 'embeddings.bin'));
const wasmOpt = path.join(npmDir, 'node_modules', '.bin', 'wasm-opt');
// wasm-bindgen's module is often the same bytes for both targets (only the JavaScript glue
// differs): wasm-opt runs once per distinct module.
const optimized = new Map();
for (const target of ['nodejs', 'web']) {
  const out = path.join(dist, target === 'nodejs' ? 'node' : 'web');
  run('wasm-bindgen', ['--target', target, '--out-dir', out, '--out-name', 'mcp_memory', built]);
  // wasm-bindgen's Node output is CommonJS; the package is ESM.
  if (target === 'nodejs') fs.writeFileSync(path.join(out, 'package.json'), '{ "type": "commonjs" }\n');
  const wasm = path.join(out, 'mcp_memory_bg.wasm');
  const module = fs.readFileSync(wasm);
  const key = module.toString('base64');
  if (optimized.has(key)) {
    fs.writeFileSync(wasm, optimized.get(key));
  } else {
    run(wasmOpt, ['-O3', '--strip-debug', '--strip-producers', wasm, '-o', wasm]);
    optimized.set(key, fs.readFileSync(wasm));
  }
  const after = optimized.get(key);
  process.stderr.write(
    `engine for ${target}: ${module.length} bytes from wasm-bindgen, ${after.length} after wasm-opt, ` +
      `${zlib.gzipSync(after, { level: 9 }).length} gzipped\n`,
  );
}
