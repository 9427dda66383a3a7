// The MCP Bundle as Claude Desktop uses it: build.mjs packs it (the official CLI validates the
// manifest), the official CLI unpacks it, the official library resolves the server's command
// and environment from the manifest and a user's settings, and the server so started answers
// with the tools of the profile chosen, keeping its memory where the settings say.
//
// The binary is $MCP_MEMORY_NATIVE, else target/debug/mcp-memory (cargo build).

import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { getMcpConfigForManifest } from '@anthropic-ai/mcpb';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..', '..');
const NATIVE = path.resolve(process.env.MCP_MEMORY_NATIVE ?? path.join(ROOT, 'target', 'debug', 'mcp-memory'));
const MCPB = path.join(HERE, 'node_modules', '.bin', 'mcpb');

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-memory-bundle-test-'));
test.after(() => fs.rmSync(work, { recursive: true, force: true }));

/** Builds the bundle and unpacks it as a client would; returns the unpacked directory. */
function buildAndUnpack() {
  const bundle = execFileSync('node', [path.join(HERE, 'build.mjs'), '--binary', NATIVE, '--out', work], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  }).trim();
  assert.equal(path.basename(bundle), `mcp-memory-0.1.0-${process.platform}-${process.arch}.mcpb`);
  const dir = path.join(work, 'unpacked');
  execFileSync(MCPB, ['unpack', bundle, dir], { stdio: 'ignore' });
  return dir;
}

const unpacked = buildAndUnpack();
const manifest = JSON.parse(fs.readFileSync(path.join(unpacked, 'manifest.json'), 'utf8'));

/**
 * Starts the server as a client would for these user settings (a home of its own, so the
 * default memory lands in `home`), sends `requests` after `initialize` and returns the replies
 * by id.
 */
async function serve(userConfig, home, requests) {
  const config = await getMcpConfigForManifest({
    manifest,
    extensionPath: unpacked,
    systemDirs: { HOME: home },
    userConfig,
    pathSeparator: path.sep,
  });
  assert.ok(config, 'the manifest resolves to a server command');
  const child = spawn(config.command, config.args, {
    env: { PATH: process.env.PATH, HOME: home, XDG_DATA_HOME: path.join(home, '.local', 'share'), ...config.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const all = [
    { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bundle-test', version: '1' } } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    ...requests.map((r, i) => ({ jsonrpc: '2.0', id: i + 1, ...r })),
  ];
  child.stdin.end(all.map((r) => JSON.stringify(r)).join('\n') + '\n');
  let out = '';
  let err = '';
  child.stderr.on('data', (c) => (err += c));
  for await (const chunk of child.stdout) out += chunk;
  const status = await new Promise((resolve) => child.on('close', resolve));
  assert.equal(status, 0, `the server failed: ${err}`);
  const replies = new Map(out.split('\n').filter(Boolean).map((l) => JSON.parse(l)).map((m) => [m.id, m]));
  return { config, replies };
}

const toolNames = (reply) => reply.result.tools.map((t) => t.name);

test('the packed manifest names this platform, the binary and the default profile tools', () => {
  assert.deepEqual(manifest.compatibility.platforms, [process.platform]);
  const entry = path.join(unpacked, manifest.server.entry_point);
  assert.ok(fs.statSync(entry).mode & 0o100, 'the unpacked server is executable');
  assert.equal(manifest.tools[0].name, 'create_entities');
  assert.ok(manifest.tools.every((t) => t.description && !t.description.includes('\n')));
});

test("a user's settings choose the memory file, the profile and the history kept", async () => {
  const home = path.join(work, 'home-set');
  fs.mkdirSync(home);
  const file = path.join(home, 'notes', 'project.mcpmem');
  const { config, replies } = await serve({ memory_file: file, profile: 'rust', history_days: 7 }, home, [
    { method: 'tools/list' },
    { method: 'tools/call', params: { name: 'create_entities', arguments: { entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }] } } },
  ]);
  assert.equal(config.command, path.join(unpacked, 'server', 'mcp-memory'));
  assert.deepEqual(config.env, { MEMORY_FILE_PATH: file, MCP_MEMORY_PROFILE: 'rust', MCP_MEMORY_HISTORY_DAYS: '7' });
  const tools = toolNames(replies.get(1));
  assert.equal(tools.length, 26, `the rust profile lists its 26 tools: ${tools}`);
  assert.equal(replies.get(2).result.isError, undefined, JSON.stringify(replies.get(2)));
  assert.ok(fs.statSync(file).size > 0, 'the memory is in the file the user chose');
});

test('with no settings the defaults hold: the data folder and the default profile', async () => {
  const home = path.join(work, 'home-default');
  fs.mkdirSync(home);
  const { config, replies } = await serve({}, home, [
    { method: 'tools/list' },
    { method: 'tools/call', params: { name: 'create_entities', arguments: { entities: [{ name: 'Grace', entityType: 'person', observations: [] }] } } },
  ]);
  for (const value of Object.values(config.env)) assert.ok(!value.includes('${'), `unresolved: ${value}`);
  assert.deepEqual(
    toolNames(replies.get(1)),
    manifest.tools.map((t) => t.name),
  );
  const file = path.join(home, '.local', 'share', 'mcp-memory', 'memory.mcpmem');
  assert.ok(fs.existsSync(file), `the default memory is ${file}`);
});
