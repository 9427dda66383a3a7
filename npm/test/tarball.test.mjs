// The package as users get it: `npm pack`, installed offline into an empty folder and run
// through npx — the files it ships (the engine, no native addons, no install scripts) and
// that the installed command and JS API work. Nothing here uses the network: the package has
// no dependencies, and every npm command runs with --offline and a fresh cache.

import test, { before } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import {
  NPM_DIR,
  assertOk,
  call,
  entity,
  exec,
  initialize,
  replies,
  replyTo,
  serve,
  tempDir,
} from './helpers.mjs';

const pkg = JSON.parse(fs.readFileSync(path.join(NPM_DIR, 'package.json'), 'utf8'));
const work = tempDir('mcp-memory-tarball-');
const cache = path.join(work, 'npm-cache');

/**
 * The environment of npm and npx children: none of the npm_* variables `npm test` sets for
 * its script (they would point the child at this package), a cache of our own.
 */
function npmEnv(extra = {}) {
  const env = {};
  for (const k of Object.keys(process.env)) if (/^npm_|^INIT_CWD$/i.test(k)) env[k] = undefined;
  return { ...env, npm_config_cache: cache, npm_config_update_notifier: 'false', ...extra };
}

const npmCmd = (...args) => ({ command: 'npm', args });
const npxCmd = (...args) => ({ command: 'npx', args });

let tarball; // absolute path of the packed .tgz
let packed; // npm pack --json's description of it

before(async () => {
  const out = path.join(work, 'pack');
  fs.mkdirSync(out);
  const run = assertOk(await exec(npmCmd('pack', '--json', '--pack-destination', out), { cwd: NPM_DIR, env: npmEnv() }), 'npm pack');
  [packed] = JSON.parse(run.stdout);
  tarball = path.join(out, packed.filename);
  assert.ok(fs.existsSync(tarball), `npm pack made ${tarball}`);
});

/** Serves initialize and two tool calls through `cmd`; checks the answers. */
async function answersMcp(cmd, { cwd, what }) {
  const file = path.join(tempDir(), 'memory.mcpmem');
  const run = await serve(
    cmd,
    [initialize(1), call(2, 'create_entities', { entities: [entity('from the tarball', 't', ['x'])] }), call(3, 'read_graph', {})],
    { cwd, env: npmEnv({ MEMORY_FILE_PATH: file }) },
  );
  assertOk(run, what);
  const init = replyTo(run, 1).result;
  assert.equal(init?.serverInfo?.name, 'mcp-memory', `${what}: ${run.stdout}`);
  assert.equal(init.serverInfo.version, pkg.version);
  assert.deepEqual(replyTo(run, 2).result.structuredContent, { entities: [entity('from the tarball', 't', ['x'])] });
  assert.deepEqual(replyTo(run, 3).result.structuredContent.entities.map((e) => e.name), ['from the tarball']);
  assert.equal(replies(run).length, 3, `${what}: only JSON-RPC on stdout:\n${run.stdout}`);
  assert.ok(fs.statSync(file).size > 16, `${what}: the memory file was written`);
  return run;
}

test('the tarball ships the engine (dist/node and dist/web), the CLI, both APIs and the memory browser, and nothing else', () => {
  const paths = packed.files.map((f) => f.path).sort();
  for (const wanted of [
    'package.json',
    'bin/mcp-memory.js',
    'lib/index.js',
    'lib/config.js',
    'lib/disk.js',
    'lib/engine.js',
    'lib/server.js',
    'index.d.ts',
    'dist/node/mcp_memory.js',
    'dist/node/mcp_memory_bg.wasm',
    'dist/node/package.json',
    'lib/browser.js',
    'lib/idb.js',
    'lib/tools.js',
    'browser.d.ts',
    'dist/web/mcp_memory.js',
    'dist/web/mcp_memory_bg.wasm',
    'ui/index.html',
  ]) {
    assert.ok(paths.includes(wanted), `${wanted} is in the tarball (was the engine built with npm run build?)\n${paths.join('\n')}`);
  }
  const wasm = packed.files.find((f) => f.path.endsWith('.wasm'));
  assert.ok(wasm.size > 100_000, 'the engine is a real module, not a placeholder');
  for (const p of paths) {
    assert.ok(!/^(test|scripts|node_modules|src|demo|bench)\//.test(p), `${p}: no tests, build scripts, demo or dependencies`);
    assert.ok(!p.endsWith('.node') && !p.endsWith('binding.gyp') && !p.endsWith('.tgz'), `${p}: no native addon`);
  }
  const bin = packed.files.find((f) => f.path === 'bin/mcp-memory.js');
  assert.ok(bin.mode & 0o111, 'the CLI is executable');
});

test('the packed package.json has no install scripts, no gyp build and no dependencies (an offline, script-free install)', async () => {
  const dir = tempDir();
  execFileSync('tar', ['-xzf', tarball, '-C', dir]);
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package', 'package.json'), 'utf8'));
  const scripts = Object.keys(manifest.scripts ?? {});
  for (const hook of ['preinstall', 'install', 'postinstall', 'prepare', 'preprepare', 'postprepare']) {
    assert.ok(!scripts.includes(hook), `no ${hook} script`);
  }
  assert.notEqual(manifest.gypfile, true);
  for (const field of ['dependencies', 'optionalDependencies', 'peerDependencies', 'bundleDependencies', 'bundledDependencies']) {
    assert.deepEqual(Object.keys(manifest[field] ?? {}), [], `no ${field}`);
  }
  assert.equal(manifest.bin['mcp-memory'], 'bin/mcp-memory.js');
  const wasm = fs.readFileSync(path.join(dir, 'package', 'dist', 'node', 'mcp_memory_bg.wasm'));
  assert.ok(wasm.subarray(0, 4).equals(Buffer.from([0, 0x61, 0x73, 0x6d])), 'a WebAssembly module');
  assert.ok(fs.readFileSync(path.join(dir, 'package', 'bin', 'mcp-memory.js'), 'utf8').startsWith('#!/usr/bin/env node\n'));
});

test('installed offline into an empty folder, `npx --offline mcp-memory` serves MCP and the JS API imports', async () => {
  const app = tempDir();
  const install = await exec(npmCmd('install', '--offline', '--no-audit', '--no-fund', tarball), { cwd: app, env: npmEnv() });
  assertOk(install, 'npm install of the tarball');
  assert.deepEqual(fs.readdirSync(path.join(app, 'node_modules')).filter((n) => !n.startsWith('.')), ['mcp-memory'], 'nothing else installed');
  assert.ok(fs.existsSync(path.join(app, 'node_modules', '.bin', 'mcp-memory')));

  await answersMcp(npxCmd('--offline', 'mcp-memory'), { cwd: app, what: 'npx --offline mcp-memory' });
  const version = assertOk(await exec(npxCmd('--offline', 'mcp-memory', '--version'), { cwd: app, env: npmEnv() }));
  assert.equal(version.stdout, `mcp-memory ${pkg.version}\n`);

  // The JS API, imported by package name (the exports map).
  const file = path.join(tempDir(), 'api.mcpmem');
  const script = `
    import { Memory, ToolError } from 'mcp-memory';
    const memory = new Memory(${JSON.stringify(file)});
    memory.createEntities([{ name: 'via the API', entityType: 't', observations: [] }]);
    let error;
    try { memory.addObservations([{ entityName: 'missing', contents: ['x'] }]); } catch (e) { error = e instanceof ToolError && e.message; }
    console.log(JSON.stringify({ graph: memory.readGraph(), error }));
    memory.close();`;
  const api = assertOk(await exec({ command: process.execPath, args: ['--input-type=module', '-e', script] }, { cwd: app }), 'the installed API');
  assert.deepEqual(JSON.parse(api.stdout), {
    graph: { entities: [entity('via the API', 't')], relations: [] },
    error: 'Entity with name missing not found',
  });
  // The browser API by its subpath: it loads without any Node API (IndexedDB is what is missing here).
  const browserScript = `
    import { BrowserMemory, MemoryTransport } from 'mcp-memory/browser';
    const refused = await BrowserMemory.open('x', { wasm: new Uint8Array(0) }).catch((e) => e.constructor.name);
    console.log(typeof BrowserMemory, typeof MemoryTransport, refused);`;
  const browser = assertOk(await exec({ command: process.execPath, args: ['--input-type=module', '-e', browserScript] }, { cwd: app }), 'the browser API');
  assert.equal(browser.stdout.trim(), 'function function CompileError');
  const pkgJson = assertOk(
    await exec({ command: process.execPath, args: ['-p', "require('mcp-memory/package.json').version"] }, { cwd: app }),
  );
  assert.equal(pkgJson.stdout.trim(), pkg.version);
});

test('`npx --offline -y --package=<absolute tgz> mcp-memory` runs the tarball without installing it first', async () => {
  await answersMcp(npxCmd('--offline', '-y', `--package=${tarball}`, 'mcp-memory'), { cwd: tempDir(), what: 'npx --package=<tgz>' });
});

// `npx -y /abs/x.tgz` (a bare absolute path) does not work: npm 11 (libnpmexec) looks for the
// command as a file first, finds the tarball and runs it as a program ("Permission denied").
// These forms work, and npm/README.md gives them.
test('`npx --offline -y file:<absolute tgz>` and `npx --offline -y ./<tgz>` run the tarball', async () => {
  await answersMcp(npxCmd('--offline', '-y', `file:${tarball}`), { cwd: tempDir(), what: 'npx file:<tgz>' });
  await answersMcp(npxCmd('--offline', '-y', `./${path.basename(tarball)}`), { cwd: path.dirname(tarball), what: 'npx ./<tgz>' });
});
