// A memory per workspace root (`--scope roots`) in the npm package's server, as the native
// one keeps them: two clients in two roots at once see only their own memory; a root with
// .mcp-memory/ keeps it there, others beside the memory file, under the names the native
// binary uses (it finds a memory the Node server wrote); a client without roots is served
// the memory file and told so.

import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import { CLI, assertOk, call, entity, replyTo, serve, tempDir } from './helpers.mjs';

const NATIVE = process.env.MCP_MEMORY_NATIVE;

/** A client's session: initialize (with roots, or none), then the handshake's end. */
function opening(roots) {
  return [
    {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: roots ? { roots: { listChanged: true } } : {},
        clientInfo: { name: 'scope-test', version: '1' },
      },
    },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
  ];
}

/** The client's answer to the server's first roots/list (its id is the server's first). */
const rootsAnswer = (dirs) => ({
  jsonrpc: '2.0',
  id: 'mcp-memory/roots/1',
  result: { roots: dirs.map((d) => ({ uri: `file://${d.replaceAll(' ', '%20')}`, name: 'w' })) },
});

/**
 * One session of `cmd` with `--scope roots` on `file`: a client in `roots` (none: no roots
 * capability) creates `name`, then reads the graph; returns the run and the names it read.
 * The create comes before the roots' answer, as a client's call may: it waits for it.
 */
async function session(cmd, file, roots, name) {
  const messages = [...opening(roots), call(1, 'create_entities', { entities: [entity(name, 'thing')] })];
  if (roots) messages.push(rootsAnswer(roots));
  messages.push(call(2, 'read_graph', {}));
  const run = assertOk(
    await serve({ command: cmd.command, args: [...cmd.args, '--scope', 'roots', '-f', file] }, messages, {
      env: { MCP_MEMORY_PROFILE: undefined },
    }),
  );
  assert.equal(replyTo(run, 1).result.isError, undefined, run.stdout);
  const names = replyTo(run, 2).result.structuredContent.entities.map((e) => e.name);
  return { run, names };
}

const node = { command: process.execPath, args: [CLI] };

test('two clients in two roots see only their own memory; one without roots gets the file', async () => {
  const dir = tempDir('mcp-memory-scope-');
  const file = path.join(dir, 'data', 'memory.mcpmem');
  const [a, b] = [path.join(dir, 'work a'), path.join(dir, 'work-b')];
  fs.mkdirSync(a, { recursive: true });
  fs.mkdirSync(path.join(b, '.mcp-memory'), { recursive: true });

  const [inA, inB] = await Promise.all([session(node, file, [a], 'Alpha'), session(node, file, [b, a], 'Beta')]);
  assert.deepEqual(inA.names, ['Alpha']);
  assert.deepEqual(inB.names, ['Beta']);
  assert.ok(fs.statSync(path.join(b, '.mcp-memory', 'memory.mcpmem')).size > 0);
  const beside = fs.readdirSync(path.join(dir, 'data', 'roots'));
  assert.equal(beside.length, 1);
  assert.match(beside[0], /^worka-[0-9a-f]{16}\.mcpmem$/);

  const rootless = await session(node, file, null, 'Gamma');
  assert.deepEqual(rootless.names, ['Gamma']);
  assert.match(replyTo(rootless.run, 0).result.instructions, /declares no workspace roots/);
  const again = await session(node, file, [a], 'Alpha 2');
  assert.deepEqual(again.names.sort(), ['Alpha', 'Alpha 2']);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('the native server finds the memory the Node server kept for a root', { skip: !NATIVE && 'MCP_MEMORY_NATIVE is not set' }, async () => {
  const dir = tempDir('mcp-memory-scope-');
  const file = path.join(dir, 'memory.mcpmem');
  const root = path.join(dir, 'project');
  fs.mkdirSync(root);
  await session(node, file, [root], 'Written by Node');
  const native = await session({ command: NATIVE, args: [] }, file, [root], 'Written natively');
  assert.deepEqual(native.names.sort(), ['Written by Node', 'Written natively']);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('an unknown scope is refused', async () => {
  const run = await serve({ command: process.execPath, args: [CLI, '--scope', 'project'] }, []);
  assert.equal(run.status, 2);
  assert.match(run.stderr, /invalid value 'project' for '--scope <SCOPE>'/);
});
