// The MCP registry's entry for this package (server.json): valid against the registry's
// published schema (vendored in test/registry/, see its README), naming this package as the
// registry checks it (package.json's mcpName, name and version), and saying only what the
// command does: each environment variable it lists changes what `npx mcp-memory` serves, and
// the profile choices are exactly the ones the command accepts.

import test from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';

import { NPM_DIR, assertOk, call, entity, initialize, replyTo, request, serve, tempDir } from './helpers.mjs';

const SCHEMA = path.join(NPM_DIR, 'test', 'registry', 'server.schema.json');
/** The published file's SHA-256 (test/registry/README.md). */
const SCHEMA_SHA256 = '3fba09590c99f61735d234822279f4223fab9e300c0a81e81c91ab62a4114de0';

const server = JSON.parse(fs.readFileSync(path.join(NPM_DIR, 'server.json'), 'utf8'));
const pkg = JSON.parse(fs.readFileSync(path.join(NPM_DIR, 'package.json'), 'utf8'));
const [entry] = server.packages;
const env = new Map(entry.environmentVariables.map((v) => [v.name, v]));

/** The command the entry runs (npx runs the package's bin). */
const cmd = { command: process.execPath, args: [path.join(NPM_DIR, pkg.bin['mcp-memory'])] };

/** tools/list's names from `mcp-memory` started with this environment (and no profile unless it names one). */
async function toolNames(extraEnv) {
  const dir = tempDir('mcp-memory-registry-');
  const run = assertOk(
    await serve(cmd, [initialize(0), request(1, 'tools/list')], {
      env: { MEMORY_FILE_PATH: path.join(dir, 'memory.mcpmem'), MCP_MEMORY_PROFILE: undefined, ...extraEnv },
    }),
  );
  fs.rmSync(dir, { recursive: true, force: true });
  return replyTo(run, 1).result.tools.map((t) => t.name);
}

test('server.json is valid against the vendored registry schema, which is the published file', () => {
  const bytes = fs.readFileSync(SCHEMA);
  assert.equal(createHash('sha256').update(bytes).digest('hex'), SCHEMA_SHA256);
  const schema = JSON.parse(bytes);
  assert.equal(server.$schema, schema.$id);
  // strict: false, as the schema carries OpenAPI's `example` beside JSON Schema's keywords.
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats(ajv);
  const validate = ajv.compile(schema);
  assert.ok(validate(server), ajv.errorsText(validate.errors));
});

test('the entry names this package as the registry checks it', () => {
  assert.equal(server.name, pkg.mcpName);
  assert.deepEqual(
    [entry.registryType, entry.identifier, entry.version, server.version, entry.transport.type],
    ['npm', pkg.name, pkg.version, pkg.version, 'stdio'],
  );
});

test('MEMORY_FILE_PATH is where the memory is kept', async () => {
  assert.equal(env.get('MEMORY_FILE_PATH').format, 'filepath');
  const dir = tempDir('mcp-memory-registry-');
  const file = path.join(dir, 'sub', 'project.mcpmem');
  const run = await serve(cmd, [initialize(0), call(1, 'create_entities', { entities: [entity('Ada', 'person')] })], {
    env: { MEMORY_FILE_PATH: file },
  });
  assertOk(run);
  assert.ok(fs.statSync(file).size > 0);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('MCP_MEMORY_PROFILE offers exactly the profiles the command accepts, each its own tools', async () => {
  const { choices, default: fallback } = env.get('MCP_MEMORY_PROFILE');
  assert.ok(choices.includes(fallback));
  const listed = new Map();
  for (const profile of choices) listed.set(profile, (await toolNames({ MCP_MEMORY_PROFILE: profile })).join());
  assert.equal(new Set(listed.values()).size, choices.length, 'each profile lists other tools');
  assert.equal(listed.get(fallback), (await toolNames({})).join(), 'the default is the default');
  const refused = await serve(cmd, [initialize(0)], { env: { MCP_MEMORY_PROFILE: 'no-such-profile' } });
  assert.notEqual(refused.status, 0);
  for (const profile of choices) assert.ok(refused.stderr.includes(profile), `the refusal lists ${profile}: ${refused.stderr}`);
});

test('MCP_MEMORY_TOOLS, MCP_MEMORY_HISTORY_DAYS and MCP_MEMORY_ACTOR are read', async () => {
  assert.deepEqual([...env.keys()].sort(), [
    'MCP_MEMORY_ACTOR',
    'MCP_MEMORY_HISTORY_DAYS',
    'MCP_MEMORY_PROFILE',
    'MCP_MEMORY_TOOLS',
    'MEMORY_FILE_PATH',
  ]);
  assert.ok(!(await toolNames({ MCP_MEMORY_TOOLS: '-undo' })).includes('undo'));
  assert.ok((await toolNames({})).includes('undo'));
  const bad = await serve(cmd, [initialize(0)], { env: { MCP_MEMORY_HISTORY_DAYS: 'soon' } });
  assert.notEqual(bad.status, 0, 'a history that is not a number is refused');
  assert.equal(env.get('MCP_MEMORY_HISTORY_DAYS').default, '30');
  const dir = tempDir('mcp-memory-registry-');
  const file = path.join(dir, 'memory.mcpmem');
  const run = await serve(
    cmd,
    [initialize(0), call(1, 'create_entities', { entities: [entity('Ada', 'person')] }), call(2, 'history', {})],
    { env: { MEMORY_FILE_PATH: file, MCP_MEMORY_ACTOR: 'registry-test-actor' } },
  );
  assertOk(run);
  assert.ok(JSON.stringify(replyTo(run, 2)).includes('registry-test-actor'), JSON.stringify(replyTo(run, 2)));
  fs.rmSync(dir, { recursive: true, force: true });
});
