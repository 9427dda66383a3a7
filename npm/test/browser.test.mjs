// The browser API (lib/browser.js) and its IndexedDB log (lib/idb.js) under Node, with
// fake-indexeddb standing in for the browser's IndexedDB: records stored in order and
// replayed, two memories (tabs) on one database losing nothing, a failed transaction leaving
// nothing half-done, damaged stores refused, files crossing to and from the Node host, and
// the MCP TypeScript SDK's client speaking to a memory through MemoryTransport.
// test/browser.chromium.test.mjs runs the same API in real Chromium.

import 'fake-indexeddb/auto';
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';

import { BrowserMemory, MemoryTransport, ToolError } from '../lib/browser.js';
import { IdbLog } from '../lib/idb.js';
import { Memory } from '../lib/index.js';
import { EVERY_RECORD_SESSIONS, NPM_DIR, assertCatalog, entity, relation, tempDir } from './helpers.mjs';

const wasm = fs.readFileSync(path.join(NPM_DIR, 'dist', 'web', 'mcp_memory_bg.wasm'));
let names = 0;
/** A memory name no other test uses (all tests share one fake IndexedDB). */
const unique = () => `test-${++names}`;
const open = (name, options = {}) => BrowserMemory.open(name, { wasm, ...options });
const bytes = (...values) => values.map((v) => new Uint8Array([v]));
const plain = (records) => records.map((r) => [...r]);

/** One `cycle` that stores `writes` and returns what it was handed. */
function store(log, writes) {
  return log.cycle((changes) => ({ result: changes, writes }));
}

// ---------------------------------------------------------------------------------------
// IdbLog

test('IdbLog keeps records in order across connections and hands each writer only what others added since it looked', async () => {
  const name = unique();
  const a = await IdbLog.open(name);
  const b = await IdbLog.open(name);
  assert.deepEqual(await a.load(), []);
  assert.deepEqual(await b.load(), []);
  await store(a, { replaced: false, records: bytes(1, 2) });
  const seen = await store(b, { replaced: false, records: bytes(3) });
  assert.deepEqual({ records: plain(seen.records), replaced: seen.replaced }, { records: [[1], [2]], replaced: false });
  const next = await store(a, { replaced: false, records: [] });
  assert.deepEqual(plain(next.records), [[3]], 'a sees only b\'s record, not its own again');
  assert.deepEqual(plain((await store(b, { replaced: false, records: [] })).records), [], 'nothing new');
  const c = await IdbLog.open(name);
  assert.deepEqual(plain(await c.load()), [[1], [2], [3]]);
  for (const log of [a, b, c]) log.close();
});

test('IdbLog replace swaps the whole log in one transaction and other writers reload all of it', async () => {
  const name = unique();
  const a = await IdbLog.open(name);
  const b = await IdbLog.open(name);
  await a.load();
  await b.load();
  await store(a, { replaced: false, records: bytes(1, 2, 3) });
  await store(b, { replaced: false, records: [] });
  await store(a, { replaced: true, records: bytes(9) });
  const seen = await store(b, { replaced: false, records: bytes(10) });
  assert.equal(seen.replaced, true);
  assert.deepEqual(plain(seen.records), [[9]]);
  assert.deepEqual(plain((await store(a, { replaced: false, records: [] })).records), [[10]], 'after a replace, appends follow it');
  const c = await IdbLog.open(name);
  assert.deepEqual(plain(await c.load()), [[9], [10]]);
  for (const log of [a, b, c]) log.close();
});

test('IdbLog stores nothing of a cycle whose step throws, and rejects with that error', async () => {
  const name = unique();
  const log = await IdbLog.open(name);
  await log.load();
  await store(log, { replaced: false, records: bytes(1) });
  const boom = new Error('boom');
  await assert.rejects(
    log.cycle(() => {
      throw boom;
    }),
    (e) => e === boom,
  );
  assert.deepEqual(plain(await (await IdbLog.open(name)).load()), [[1]]);
  assert.deepEqual(plain((await store(log, { replaced: false, records: [] })).records), [], 'the log reads on from where it was');
  log.close();
});

// ---------------------------------------------------------------------------------------
// BrowserMemory

// The first test to load the engine (it is loaded once per module instance).
test('an engine that fails to load does not stay failed: a later open with the right file works', async () => {
  await assert.rejects(BrowserMemory.open(unique(), { wasm: new Uint8Array([0, 1, 2, 3]) }), WebAssembly.CompileError);
  const memory = await open(unique());
  assert.deepEqual(await memory.readGraph(), { entities: [], relations: [] });
  await memory.close();
});

test('a BrowserMemory lists its profile: default unless the profile and tools options say otherwise', async () => {
  const names = async (memory) => JSON.parse((await memory.handle('{"jsonrpc":"2.0","id":1,"method":"tools/list"}'))[0]).result.tools.map((t) => t.name);
  const name = unique();
  const byDefault = await open(name);
  assert.deepEqual((await names(byDefault)).slice(9), ['search', 'history', 'undo']);
  byDefault.close();
  const reference = await open(name, { profile: 'reference', tools: '+undo' });
  assert.deepEqual((await names(reference)).slice(9), ['undo']);
  reference.close();
  await assert.rejects(open(unique(), { profile: 'everything' }), /unknown profile 'everything'/);
});

test('a BrowserMemory keeps every change across close and reopen (records of every kind)', async () => {
  const name = unique();
  const memory = await open(name);
  for (const session of EVERY_RECORD_SESSIONS) for (const [tool, args] of session) await memory.callTool(tool, args);
  const before = await memory.readGraph();
  memory.close();
  memory.close();
  await assert.rejects(memory.readGraph(), /closed/);
  const again = await open(name);
  assert.deepEqual(await again.readGraph(), before);
  assert.ok(before.entities.length > 0);
  again.close();
});

test('two memories on one name (two tabs) writing interleaved lose nothing and each sees every write', async () => {
  const name = unique();
  const [a, b] = [await open(name), await open(name)];
  const writes = [];
  for (let i = 0; i < 100; i++) {
    writes.push(a.createEntities([entity(`a${i}`, 't')]));
    writes.push(b.createEntities([entity(`b${i}`, 't')]));
    writes.push((i % 2 ? a : b).addObservations([{ entityName: i % 2 ? `a${i}` : `b${i}`, contents: [`o${i}`] }]));
  }
  await Promise.all(writes);
  const [ga, gb] = [await a.readGraph(), await b.readGraph()];
  assert.equal(ga.entities.length, 200);
  assert.deepEqual(gb, ga, 'both tabs see the same graph');
  assert.equal(ga.entities.filter((e) => e.observations.length === 1).length, 100);
  const c = await open(name);
  assert.deepEqual(await c.readGraph(), ga, 'and it is what was stored');
  for (const m of [a, b, c]) m.close();
});

test('a memory deleted by another tab answers its requests with an error saying so, and opens again empty', async () => {
  const name = unique();
  const memory = await open(name);
  await memory.createEntities([entity('A', 't')]);
  await BrowserMemory.delete(name);
  const [reply] = (await memory.handle({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'read_graph', arguments: {} } })).map(JSON.parse);
  assert.equal(reply.error.code, -32603);
  assert.match(reply.error.message, new RegExp(`memory '${name}' was deleted`));
  await memory.close();
  const again = await open(name);
  assert.deepEqual(await again.readGraph(), { entities: [], relations: [] });
  await again.close();
});

test('memories with different names are separate, and delete removes one', async () => {
  const [x, y] = [unique(), unique()];
  const mx = await open(x);
  const my = await open(y);
  await mx.createEntities([entity('only in x', 't')]);
  assert.deepEqual(await my.readGraph(), { entities: [], relations: [] });
  mx.close();
  my.close();
  await BrowserMemory.delete(x);
  const again = await open(x);
  assert.deepEqual(await again.readGraph(), { entities: [], relations: [] });
  again.close();
});

test('a write whose IndexedDB transaction fails is answered with an error and leaves nothing behind', async (t) => {
  const name = unique();
  const memory = await open(name);
  await memory.createEntities([entity('kept', 't')]);
  const add = IDBObjectStore.prototype.add;
  t.after(() => {
    IDBObjectStore.prototype.add = add;
  });
  IDBObjectStore.prototype.add = function () {
    throw new DOMException('quota exceeded (simulated)', 'QuotaExceededError');
  };
  const replies = await memory.handle({
    jsonrpc: '2.0',
    id: 7,
    method: 'tools/call',
    params: { name: 'create_entities', arguments: { entities: [entity('lost', 't')] } },
  });
  IDBObjectStore.prototype.add = add;
  assert.equal(replies.length, 1);
  const reply = JSON.parse(replies[0]);
  assert.equal(reply.id, 7);
  assert.equal(reply.error.code, -32603);
  assert.match(reply.error.message, /could not be stored.*quota exceeded/);
  assert.deepEqual((await memory.readGraph()).entities.map((e) => e.name), ['kept'], 'the memory holds only what is stored');
  await memory.createEntities([entity('after', 't')]);
  memory.close();
  const again = await open(name);
  assert.deepEqual((await again.readGraph()).entities.map((e) => e.name), ['kept', 'after']);
  again.close();
});

test('a store holding a record this version cannot read is refused at open, naming the record', async () => {
  const name = unique();
  const memory = await open(name);
  await memory.createEntities([entity('A', 't')]);
  memory.close();
  const log = await IdbLog.open(name);
  await log.load();
  await store(log, { replaced: false, records: [new Uint8Array([200, 1, 2])] });
  log.close();
  await assert.rejects(open(name), /record 1/);
});

test('compact rewrites the IndexedDB log in one transaction: deleted text gone, other tabs reload it whole', async () => {
  const name = unique();
  // `a` keeps no history, so its compaction folds every change (30 days are kept by default).
  const [a, b] = [await open(name, { historyDays: 0 }), await open(name)];
  await a.createEntities([entity('A', 't', ['keep']), entity('Gone', 't', ['secret'])]);
  await b.createRelations([relation('A', 'Gone', 'r'), relation('A', 'B', 's')]);
  await a.deleteEntities(['Gone']);
  for (let i = 0; i < 10; i++) await b.addObservations([{ entityName: 'A', contents: [`o${i}`] }]);
  const before = await a.readGraph();
  const stored = async () => (await (await IdbLog.open(name)).load()).map((r) => Buffer.from(r).toString('latin1'));
  assert.equal((await stored()).length, 13);
  assert.equal(await b.compact(), 13, 'the default keeps recent history as it was logged');
  assert.equal(await a.compact(), 1, 'the graph as one checkpoint');
  const after = await stored();
  assert.equal(after.length, 1);
  assert.ok(!after.join('').includes('secret'), 'deleted text is gone from IndexedDB');
  assert.deepEqual(await b.readGraph(), before, 'the other tab reloads the replaced log');
  await b.addObservations([{ entityName: 'A', contents: ['after compact'] }]);
  assert.deepEqual((await a.openNodes(['A'])).entities[0].observations.at(-1), 'after compact');
  for (const m of [a, b]) await m.close();
  const c = await open(name);
  assert.equal((await c.readGraph()).entities[0].observations.length, 12);
  await c.close();
});

test('tool errors reject with ToolError and change nothing', async () => {
  const memory = await open(unique());
  await assert.rejects(memory.addObservations([{ entityName: 'nobody', contents: ['x'] }]), ToolError);
  assert.deepEqual(await memory.readGraph(), { entities: [], relations: [] });
  memory.close();
});

test('files cross between the browser and Node hosts: a log exported by either opens in the other, and JSONL exports are identical', async () => {
  const dir = tempDir();
  const browser = await open(unique());
  for (const session of EVERY_RECORD_SESSIONS) for (const [tool, args] of session) await browser.callTool(tool, args);
  const graph = await browser.readGraph();

  const file = path.join(dir, 'from-browser.mcpmem');
  fs.writeFileSync(file, await browser.exportLog());
  const node = new Memory(file);
  assert.deepEqual(node.readGraph(), graph, 'Node opens the browser\'s export as its memory file');
  assert.equal(node.exportJsonl(), await browser.exportJsonl());
  node.createEntities([entity('from node', 't')]);
  const back = await open(unique());
  assert.match(await back.importFile(node.exportLog()), /into the empty memory/);
  assert.deepEqual(await back.readGraph(), node.readGraph(), 'the browser imports Node\'s export');
  node.close();

  assert.match(await browser.importFile('{"type":"entity","name":"from jsonl","entityType":"t","observations":[]}'), /imported 1 new entities/);
  assert.ok((await browser.openNodes(['from jsonl'])).entities.length === 1);
  await assert.rejects(browser.importFile('{not json'), /line 1/);
  const buffer = new TextEncoder().encode('{"type":"entity","name":"from a buffer","entityType":"t","observations":[]}').buffer;
  assert.match(await browser.importFile(buffer), /imported 1 new entities/, 'an ArrayBuffer (File.arrayBuffer()) is a file too');
  await assert.rejects(browser.importFile(42), TypeError);
  for (const m of [browser, back]) m.close();
});

test('the MCP TypeScript SDK client connects through MemoryTransport and calls every tool', async () => {
  const memory = await open(unique(), { profile: 'all' });
  const client = new Client({ name: 'sdk-test', version: '1.0.0' });
  await client.connect(new MemoryTransport(memory));
  assert.equal(client.getServerVersion().name, 'mcp-memory');
  const { tools } = await client.listTools();
  assertCatalog(tools);
  const calls = [
    ['create_entities', { entities: [entity('A', 'person', ['likes tea']), entity('B', 'company')] }],
    ['create_relations', { relations: [relation('A', 'B', 'works_at')] }],
    ['add_observations', { observations: [{ entityName: 'B', contents: ['makes tea'] }] }],
    ['search_nodes', { query: 'TEA' }],
    ['open_nodes', { names: ['A'] }],
    ['delete_observations', { deletions: [{ entityName: 'A', observations: ['likes tea'] }] }],
    ['delete_relations', { relations: [relation('A', 'B', 'works_at')] }],
    ['delete_entities', { entityNames: ['A'] }],
    ['read_graph', {}],
  ];
  const results = {};
  for (const [name, args] of calls) {
    const result = await client.callTool({ name, arguments: args });
    assert.ok(!result.isError, `${name}: ${JSON.stringify(result)}`);
    results[name] = result.structuredContent;
  }
  assert.deepEqual(results.search_nodes.entities.map((e) => e.name), ['A', 'B']);
  assert.deepEqual(results.open_nodes.relations, [relation('A', 'B', 'works_at')]);
  assert.deepEqual(results.read_graph, { entities: [entity('B', 'company', ['makes tea'])], relations: [] });
  const failed = await client.callTool({ name: 'add_observations', arguments: { observations: [{ entityName: 'zz', contents: ['x'] }] } });
  assert.equal(failed.isError, true);
  await client.close();
  memory.close();
});

test('Symbol.asyncDispose closes a BrowserMemory once its calls finish (what `await using` calls), and its state stays private', async () => {
  const name = unique();
  const memory = await open(name);
  const created = memory.createEntities([entity('A', 't')]);
  await memory[Symbol.asyncDispose]();
  assert.deepEqual((await created).map((e) => e.name), ['A'], 'a call made before closing finishes');
  await assert.rejects(memory.readGraph(), /is closed/);
  assert.deepEqual(Object.keys(memory), ['name']);
  const transport = new MemoryTransport(memory);
  assert.deepEqual(Object.keys(transport).sort(), ['onclose', 'onerror', 'onmessage']);
  const again = await open(name);
  try {
    assert.deepEqual((await again.readGraph()).entities.map((e) => e.name), ['A']);
  } finally {
    await again.close();
  }
});

// ---------------------------------------------------------------------------------------
// Search by meaning

const PEOPLE = [
  entity('Alice', 'person', ['works as a software engineer at a search company']),
  entity('Bob', 'person', ['goes fishing on the lake every weekend']),
];

test('BrowserMemory reads the embedding table only when a search first ranks by meaning, and that search uses it', async () => {
  const table = fs.readFileSync(path.join(NPM_DIR, 'dist', 'embeddings.bin'));
  let asked = 0;
  const memory = await open(unique(), {
    embeddings: async () => {
      asked += 1;
      return table;
    },
  });
  await memory.callTool('create_entities', { entities: PEOPLE });
  await memory.callTool('search', { query: 'Alice', mode: 'lexical' });
  await memory.callTool('search_nodes', { query: 'Alice' });
  assert.equal(asked, 0, 'nothing ranked by meaning yet');
  const found = await memory.callTool('search', { query: 'who writes computer programs for a living', limit: 1 });
  assert.deepEqual(found.hits.map((h) => h.name), ['Alice'], 'hybrid by default, with the table');
  const near = await memory.callTool('search', { query: 'weekend fishing trips', mode: 'semantic', limit: 1 });
  assert.deepEqual(near.hits.map((h) => h.name), ['Bob']);
  assert.equal(asked, 1);
  await memory.close();
});

test('BrowserMemory without an embedding table searches by words and says why the semantic modes fail', async () => {
  const memory = await open(unique(), { embeddings: false });
  await memory.callTool('create_entities', { entities: PEOPLE });
  const lexical = await memory.callTool('search', { query: 'fishing', mode: 'lexical' });
  assert.deepEqual(await memory.callTool('search', { query: 'fishing' }), lexical);
  await assert.rejects(memory.callTool('search', { query: 'fishing', mode: 'semantic' }), (e) => e instanceof ToolError && /embedding table/.test(e.message));
  await memory.close();
});
