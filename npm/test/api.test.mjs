// The JavaScript API (lib/index.js): the nine tools as methods with the reference server's
// result shapes, raw MCP through handle(), persistence, JSONL export/import, conversion of
// reference files, damaged files, and two Memory objects sharing one file.

import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { Memory, ToolError, ProtocolError, memoryPath } from '../lib/index.js';
import {
  CORE_FIXTURES,
  EVERY_RECORD_SESSIONS,
  MAGIC,
  assertCatalog,
  REFERENCE_JSONL,
  entity,
  everyRecordGraph,
  exportSession,
  frames,
  initialize,
  listing,
  referenceGraph,
  referenceWritten,
  relation,
  tempDir,
} from './helpers.mjs';

/** A new memory in a new directory: `{ dir, file, memory }`. */
function fresh(name = 'memory.mcpmem') {
  const dir = tempDir();
  const file = path.join(dir, name);
  return { dir, file, memory: new Memory(file) };
}

/** Opens `file`, runs `f(memory)`, closes it; returns what `f` returned. */
function using(file, f) {
  const memory = new Memory(file);
  try {
    return f(memory);
  } finally {
    memory.close();
  }
}

/** Makes each `[tool, args]` call through callTool. */
function apply(memory, calls) {
  for (const [tool, args] of calls) memory.callTool(tool, args);
}

/** The tool names `memory` lists. */
function listedBy(memory) {
  const [reply] = memory.handle('{"jsonrpc":"2.0","id":1,"method":"tools/list"}');
  return JSON.parse(reply).result.tools.map((t) => t.name);
}

test('a Memory lists and answers its profile: default unless the profile and tools options say otherwise', () => {
  const { file, memory } = fresh();
  try {
    assert.deepEqual(listedBy(memory).slice(9), ['search', 'history', 'undo']);
    assert.throws(() => memory.callTool('get_entity', { name: 'A' }), /Tool get_entity not found/);
  } finally {
    memory.close();
  }
  const rust = new Memory(file, { profile: 'reference', tools: '+get_entity' });
  try {
    assert.deepEqual(listedBy(rust).slice(9), ['get_entity']);
    rust.createEntities([entity('A', 't', [])]);
    assert.equal(rust.callTool('get_entity', { name: 'A' }).entity.name, 'A');
  } finally {
    rust.close();
  }
  assert.throws(() => new Memory(file, { profile: 'everything' }), /unknown profile 'everything'/);
  assert.throws(() => new Memory(file, { tools: '-nope' }), /unknown tool 'nope'/);
});

test('the nine tool methods return the reference server shapes (a wrapper returning the MCP envelope or text would break clients)', () => {
  const { memory } = fresh();
  try {
    assert.deepEqual(memory.readGraph(), { entities: [], relations: [] });

    // create_entities: the entities created, in order; existing names are skipped.
    assert.deepEqual(
      memory.createEntities([
        entity('Alice', 'person', ['likes tea', 'likes tea', 'works remotely']),
        entity('Acme', 'company'),
      ]),
      [entity('Alice', 'person', ['likes tea', 'likes tea', 'works remotely']), entity('Acme', 'company')],
    );
    assert.deepEqual(
      memory.createEntities([entity('Alice', 'robot', ['other']), entity('Bob', 'person', ['plays chess'])]),
      [entity('Bob', 'person', ['plays chess'])],
    );
    assert.deepEqual(memory.createEntities([]), []);

    // create_relations: the relations created; dangling and self relations are allowed.
    assert.deepEqual(
      memory.createRelations([
        relation('Alice', 'Acme', 'works_at'),
        relation('Bob', 'Alice', 'knows'),
        relation('Alice', 'Alice', 'likes'),
        relation('Ghost', 'Acme', 'haunts'),
      ]),
      [
        relation('Alice', 'Acme', 'works_at'),
        relation('Bob', 'Alice', 'knows'),
        relation('Alice', 'Alice', 'likes'),
        relation('Ghost', 'Acme', 'haunts'),
      ],
    );
    assert.deepEqual(
      memory.createRelations([relation('Alice', 'Acme', 'works_at'), relation('Alice', 'Acme', 'founded')]),
      [relation('Alice', 'Acme', 'founded')],
    );

    // add_observations: per request entry, the contents the entity did not have yet.
    assert.deepEqual(
      memory.addObservations([
        { entityName: 'Alice', contents: ['likes tea', 'likes coffee', 'likes coffee'] },
        { entityName: 'Acme', contents: ['based in Berlin'] },
        { entityName: 'Alice', contents: ['likes coffee', 'sings'] },
      ]),
      [
        { entityName: 'Alice', addedObservations: ['likes coffee', 'likes coffee'] },
        { entityName: 'Acme', addedObservations: ['based in Berlin'] },
        { entityName: 'Alice', addedObservations: ['sings'] },
      ],
    );

    // The three deletions return nothing; their MCP results are the reference's.
    assert.equal(
      memory.deleteObservations([
        { entityName: 'Alice', observations: ['likes tea', 'not there'] },
        { entityName: 'Nobody', observations: ['x'] },
      ]),
      undefined,
    );
    const graph = {
      entities: [
        entity('Alice', 'person', ['works remotely', 'likes coffee', 'likes coffee', 'sings']),
        entity('Acme', 'company', ['based in Berlin']),
        entity('Bob', 'person', ['plays chess']),
      ],
      relations: [
        relation('Alice', 'Acme', 'works_at'),
        relation('Bob', 'Alice', 'knows'),
        relation('Alice', 'Alice', 'likes'),
        relation('Ghost', 'Acme', 'haunts'),
        relation('Alice', 'Acme', 'founded'),
      ],
    };
    assert.deepEqual(memory.readGraph(), graph);

    // search_nodes: case-insensitive; relations touching a match at either end.
    assert.deepEqual(memory.searchNodes('ACME'), {
      entities: [entity('Acme', 'company', ['based in Berlin'])],
      relations: [
        relation('Alice', 'Acme', 'works_at'),
        relation('Ghost', 'Acme', 'haunts'),
        relation('Alice', 'Acme', 'founded'),
      ],
    });
    assert.deepEqual(memory.searchNodes('chess'), {
      entities: [entity('Bob', 'person', ['plays chess'])],
      relations: [relation('Bob', 'Alice', 'knows')],
    });
    assert.deepEqual(memory.searchNodes('nothing'), { entities: [], relations: [] });
    assert.deepEqual(memory.searchNodes(''), graph);

    // open_nodes: exact names (repeats and unknown names ignored).
    assert.deepEqual(memory.openNodes(['Bob', 'Bob', 'Nobody']), {
      entities: [entity('Bob', 'person', ['plays chess'])],
      relations: [relation('Bob', 'Alice', 'knows')],
    });
    assert.deepEqual(memory.openNodes(['Ghost']), { entities: [], relations: [] });
    assert.deepEqual(memory.openNodes([]), { entities: [], relations: [] });

    assert.equal(memory.deleteRelations([relation('Alice', 'Alice', 'likes'), relation('No', 'Such', 'relation')]), undefined);
    // Deleting an entity removes every relation from or to it, even for a name never created.
    assert.equal(memory.deleteEntities(['Ghost', 'Bob', 'Nobody']), undefined);
    assert.deepEqual(memory.readGraph(), {
      entities: [
        entity('Alice', 'person', ['works remotely', 'likes coffee', 'likes coffee', 'sings']),
        entity('Acme', 'company', ['based in Berlin']),
      ],
      relations: [relation('Alice', 'Acme', 'works_at'), relation('Alice', 'Acme', 'founded')],
    });

    // The structured results of the deletions, through callTool.
    assert.deepEqual(memory.callTool('delete_entities', { entityNames: [] }), {
      success: true,
      message: 'Entities deleted successfully',
    });
    assert.deepEqual(memory.callTool('delete_observations', { deletions: [] }), {
      success: true,
      message: 'Observations deleted successfully',
    });
    assert.deepEqual(memory.callTool('delete_relations', { relations: [] }), {
      success: true,
      message: 'Relations deleted successfully',
    });
  } finally {
    memory.close();
  }
});

test('add_observations on a missing entity throws a ToolError and persists nothing, not even the valid part of the call', () => {
  const { file, memory } = fresh();
  try {
    memory.createEntities([entity('A', 't', ['a'])]);
    const size = fs.statSync(file).size;
    assert.throws(
      () =>
        memory.addObservations([
          { entityName: 'A', contents: ['must not be added'] },
          { entityName: 'Missing One', contents: ['x'] },
        ]),
      (e) => {
        assert.ok(e instanceof ToolError, `a ToolError, not ${e?.constructor?.name}`);
        assert.ok(e instanceof Error);
        assert.equal(e.name, 'ToolError');
        assert.equal(e.message, 'Entity with name Missing One not found');
        return true;
      },
    );
    assert.deepEqual(memory.readGraph(), { entities: [entity('A', 't', ['a'])], relations: [] });
    assert.equal(fs.statSync(file).size, size, 'no record was appended');
  } finally {
    memory.close();
  }
  assert.deepEqual(
    using(file, (m) => m.readGraph()),
    { entities: [entity('A', 't', ['a'])], relations: [] },
    'nothing of the failed call after reopening',
  );
});

test('callTool reports tool and argument errors as ToolError, and refused requests as ProtocolError', () => {
  const { memory } = fresh();
  try {
    assert.throws(() => memory.callTool('no_such_tool', {}), (e) => e instanceof ToolError && /Tool no_such_tool not found/.test(e.message));
    assert.throws(
      () => memory.callTool('create_entities', { entities: 'not a list' }),
      (e) => e instanceof ToolError && /Input validation error/.test(e.message),
    );
    // A tools/call without a name is not a tool call: the reply is a JSON-RPC error.
    const [line] = memory.handle({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: {} });
    const reply = JSON.parse(line);
    assert.equal(typeof reply.error?.code, 'number', line);
    assert.equal(new ProtocolError(reply.error).code, reply.error.code);
    assert.deepEqual(memory.readGraph(), { entities: [], relations: [] });
  } finally {
    memory.close();
  }
});

test('handle() takes raw JSON-RPC strings or objects and returns the lines to send (a reply, a notification, or none)', () => {
  const { file, memory: byDefault } = fresh();
  byDefault.close();
  const memory = new Memory(file, { profile: 'all' });
  try {
    // A string and an object are the same request.
    const init = memory.handle(JSON.stringify(initialize(1)));
    assert.equal(init.length, 1);
    assert.ok(init.every((l) => typeof l === 'string' && !l.includes('\n')), 'one line per message');
    const initReply = JSON.parse(init[0]);
    assert.equal(initReply.jsonrpc, '2.0');
    assert.equal(initReply.id, 1);
    assert.equal(initReply.result.protocolVersion, '2025-06-18');
    assert.equal(initReply.result.serverInfo.name, 'mcp-memory');
    assert.deepEqual(JSON.parse(memory.handle(initialize(1))[0]), initReply);

    assert.deepEqual(memory.handle({ jsonrpc: '2.0', method: 'notifications/initialized' }), [], 'no reply to a notification');
    assert.deepEqual(memory.handle('{"jsonrpc":"2.0","id":"p","method":"ping"}').map(JSON.parse), [
      { jsonrpc: '2.0', id: 'p', result: {} },
    ]);
    assert.deepEqual(memory.handle('garbage'), [], 'a line that is not JSON gets no reply');

    const tools = JSON.parse(memory.handle({ jsonrpc: '2.0', id: 2, method: 'tools/list' })[0]).result.tools;
    assertCatalog(tools);

    // A tool result: structuredContent, and the reference's text, JSON.stringify(x, null, 2)
    // of the created list (of the graph for the reads).
    const created = JSON.parse(
      memory.handle({
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'create_entities', arguments: { entities: [entity('N', 't', ['é 😀'])] } },
      })[0],
    );
    assert.deepEqual(created.result.structuredContent, { entities: [entity('N', 't', ['é 😀'])] });
    assert.deepEqual(created.result.content, [
      { type: 'text', text: JSON.stringify([entity('N', 't', ['é 😀'])], null, 2) },
    ]);
    assert.equal(created.result.isError, undefined);
    const read = JSON.parse(memory.handle({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'read_graph', arguments: {} } })[0]);
    assert.deepEqual(read.result.content, [{ type: 'text', text: JSON.stringify(read.result.structuredContent, null, 2) }]);

    // A subscriber gets a notification line before the reply to a change (the reference's order).
    const sub = memory.handle({ jsonrpc: '2.0', id: 4, method: 'resources/subscribe', params: { uri: 'memory://knowledge-graph' } });
    assert.deepEqual(JSON.parse(sub[0]), { jsonrpc: '2.0', id: 4, result: {} });
    const out = memory
      .handle({ jsonrpc: '2.0', id: 5, method: 'tools/call', params: { name: 'create_entities', arguments: { entities: [entity('M', 't')] } } })
      .map(JSON.parse);
    assert.equal(out.length, 2, JSON.stringify(out));
    assert.deepEqual(out[0], { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'memory://knowledge-graph' } });
    assert.equal(out[1].id, 5);
    // callTool picks the reply, not the notification, while subscribed.
    assert.deepEqual(memory.createEntities([entity('L', 't')]), [entity('L', 't')]);

    const unknown = JSON.parse(memory.handle({ jsonrpc: '2.0', id: 6, method: 'no/such/method' })[0]);
    assert.equal(unknown.error.code, -32601);
  } finally {
    memory.close();
  }
});

test('a closed memory reopens with every entity, relation and observation (records of every kind replay)', () => {
  const { dir, file, memory } = fresh();
  apply(memory, EVERY_RECORD_SESSIONS[0]);
  memory.close();
  using(file, (m) => apply(m, EVERY_RECORD_SESSIONS[1]));
  for (let i = 0; i < 3; i++) assert.deepEqual(using(file, (m) => m.readGraph()), everyRecordGraph(), `reopen ${i}`);

  const log = fs.readFileSync(file);
  assert.ok(log.subarray(0, 8).equals(MAGIC), 'the file is a memory log');
  assert.equal(frames(log).length, EVERY_RECORD_SESSIONS.flat().length, 'one record per change');
  assert.deepEqual(listing(dir), ['memory.mcpmem'], 'no lock or temporary file is left behind');
});

test('close() twice does nothing, and a closed Memory refuses calls with a clear error (not an engine pointer error)', () => {
  const { dir, file, memory } = fresh();
  memory.createEntities([entity('A', 't')]);
  memory.close();
  memory.close();
  for (const use of [() => memory.readGraph(), () => memory.handle('{"jsonrpc":"2.0","id":1,"method":"ping"}'), () => memory.exportJsonl(), () => memory.importFile(''), () => memory.takeWarnings()]) {
    assert.throws(use, (e) => e.message === `${file}: this memory is closed`);
  }
  assert.deepEqual(using(file, (m) => m.readGraph().entities.map((e) => e.name)), ['A']);
  assert.deepEqual(listing(dir), ['memory.mcpmem']);
});

test('a frozen version-1 file (core/tests/fixtures) opens with its recorded graph', () => {
  const dir = tempDir();
  const file = path.join(dir, 'v1.mcpmem');
  const original = fs.readFileSync(path.join(CORE_FIXTURES, 'v1-every-record.mcpmem'));
  fs.writeFileSync(file, original);
  const expected = JSON.parse(fs.readFileSync(path.join(CORE_FIXTURES, 'v1-every-record.expected.json'), 'utf8'));
  assert.deepEqual(using(file, (m) => m.readGraph()), expected);
  assert.ok(fs.readFileSync(file).equals(original), 'reading does not change the file');
});

test('exportJsonl writes the reference server exact bytes; importJsonl merges text or bytes and refuses bad input whole', () => {
  const { file, memory } = fresh();
  try {
    assert.equal(memory.exportJsonl(), '', 'an empty graph exports as an empty file');
    apply(memory, exportSession());
    assert.equal(memory.exportJsonl(), referenceWritten().toString('utf8'));
  } finally {
    memory.close();
  }

  const target = fresh();
  try {
    target.memory.createEntities([entity('A', 't', ['a1'])]);
    target.memory.createRelations([relation('A', 'B', 'r')]);
    const jsonl =
      '{"type":"entity","name":"A","entityType":"other","observations":["a1","a2"]}\r\n' +
      '{"type":"entity","name":"B","entityType":"t","observations":["b1"]}\n' +
      '\n' +
      '{"type":"relation","from":"A","to":"B","relationType":"r"}\n' +
      '{"type":"relation","from":"B","to":"A","relationType":"s"}\n';
    assert.equal(
      target.memory.importFile(jsonl),
      'imported 1 new entities, 1 new observations on existing entities, 1 new relations',
    );
    const expected = {
      entities: [entity('A', 't', ['a1', 'a2']), entity('B', 't', ['b1'])],
      relations: [relation('A', 'B', 'r'), relation('B', 'A', 's')],
    };
    assert.deepEqual(target.memory.readGraph(), expected);
    assert.equal(
      target.memory.importFile(new TextEncoder().encode(jsonl)),
      'imported 0 new entities, 0 new observations on existing entities, 0 new relations',
      'bytes work too, and importing again adds nothing',
    );

    const size = fs.statSync(target.file).size;
    assert.throws(
      () => target.memory.importFile('{"type":"entity","name":"C","entityType":"t","observations":[]}\n{not json\n'),
      /line 2/,
    );
    assert.deepEqual(target.memory.readGraph(), expected, 'a bad file imports nothing, not even its good lines');
    assert.equal(fs.statSync(target.file).size, size);

    // The whole memory round-trips through export and import.
    const copy = fresh();
    try {
      copy.memory.importFile(target.memory.exportJsonl());
      assert.deepEqual(copy.memory.readGraph(), expected);
    } finally {
      copy.memory.close();
    }
  } finally {
    target.memory.close();
  }
  // Export after reopening: what was imported was persisted.
  assert.match(using(target.file, (m) => m.exportJsonl()), /"relationType":"s"/);
  assert.ok(fs.existsSync(file));
});

test('opening a reference memory.jsonl converts it in place and keeps the original as <name>.bak', () => {
  const dir = tempDir();
  const file = path.join(dir, 'memory.jsonl');
  fs.writeFileSync(file, REFERENCE_JSONL);
  const memory = new Memory(file);
  try {
    const warnings = memory.takeWarnings();
    assert.ok(warnings.some((w) => w.includes('converted')), warnings.join('\n'));
    assert.ok(warnings.some((w) => w.includes('lone UTF-16 surrogate')), warnings.join('\n'));
    assert.deepEqual(memory.takeWarnings(), [], 'warnings are taken once');
    assert.deepEqual(memory.readGraph(), referenceGraph());
    assert.equal(memory.path, file);
  } finally {
    memory.close();
  }
  assert.equal(fs.readFileSync(path.join(dir, 'memory.jsonl.bak'), 'utf8'), REFERENCE_JSONL, 'the .bak holds the original bytes');
  frames(fs.readFileSync(file));
  assert.deepEqual(listing(dir), ['memory.jsonl', 'memory.jsonl.bak']);

  // Converted once: reopening neither converts nor makes a second .bak.
  const again = new Memory(file);
  try {
    assert.deepEqual(again.takeWarnings(), []);
    assert.deepEqual(again.readGraph(), referenceGraph());
    // Duplicate names behave as in the reference: the oldest receives observations.
    again.addObservations([{ entityName: 'Bob', contents: ['third'] }]);
  } finally {
    again.close();
  }
  const expected = referenceGraph();
  expected.entities[1] = entity('Bob', 'person', ['first', 'third']);
  assert.deepEqual(using(file, (m) => m.readGraph()), expected);
  assert.deepEqual(listing(dir), ['memory.jsonl', 'memory.jsonl.bak']);
});

test('a reference file that cannot be read is left untouched and every tool call fails with the line', () => {
  const dir = tempDir();
  const file = path.join(dir, 'memory.jsonl');
  const original = '{"type":"entity","name":"A","entityType":"t","observations":[]}\n{not json\n';
  fs.writeFileSync(file, original);
  const memory = new Memory(file);
  try {
    assert.throws(() => memory.readGraph(), (e) => e instanceof ToolError && /line 2/.test(e.message));
    assert.throws(() => memory.createEntities([entity('B', 't')]), (e) => e instanceof ToolError && /line 2/.test(e.message));
    assert.deepEqual(JSON.parse(memory.handle({ jsonrpc: '2.0', id: 1, method: 'ping' })[0]).result, {});
  } finally {
    memory.close();
  }
  assert.equal(fs.readFileSync(file, 'utf8'), original);
  assert.deepEqual(listing(dir), ['memory.jsonl'], 'no .bak, no temporary file, no lock');
});

test('a torn tail at any offset of the last frame is cut off with a warning naming the offset', () => {
  const { dir, file, memory } = fresh();
  memory.createEntities([entity('A', 't', ['a']), entity('B', 't')]);
  memory.createRelations([relation('A', 'B', 'r')]);
  const before = memory.readGraph();
  const prefix = fs.readFileSync(file);
  memory.addObservations([{ entityName: 'B', contents: ['the last change'] }]);
  memory.close();
  const full = fs.readFileSync(file);
  assert.ok(full.length > prefix.length && full.subarray(0, prefix.length).equals(prefix));

  const torn = path.join(dir, 'torn.mcpmem');
  for (let cut = prefix.length + 1; cut < full.length; cut++) {
    for (const zeroFill of [false, true]) {
      const bytes = Buffer.alloc(zeroFill ? full.length : cut);
      full.copy(bytes, 0, 0, cut);
      fs.writeFileSync(torn, bytes);
      const m = new Memory(torn);
      const warnings = m.takeWarnings();
      const graph = m.readGraph();
      m.close();
      const what = `cut at ${cut}, zero fill ${zeroFill}`;
      assert.deepEqual(graph, before, `${what}: all but the last change`);
      assert.ok(warnings.some((w) => w.includes(`torn tail at offset ${prefix.length}`)), `${what}: ${warnings}`);
      assert.ok(fs.readFileSync(torn).equals(prefix), `${what}: the file is cut back to its valid prefix`);
    }
  }
});

test('a flipped byte before the last frame refuses to open, names the offset, and leaves the file byte-identical', () => {
  const { file, memory } = fresh();
  memory.createEntities([entity('A', 't', ['a'])]);
  memory.createEntities([entity('B', 't', ['b'])]);
  memory.createRelations([relation('A', 'B', 'r')]);
  memory.close();
  const good = fs.readFileSync(file);
  const all = frames(good);
  const damagedDir = tempDir();
  const bad = path.join(damagedDir, 'memory.mcpmem');
  for (const [start, end] of all.slice(0, -1)) {
    for (let at = start; at < end; at++) {
      const bytes = Buffer.from(good);
      bytes[at] ^= 0xff;
      fs.writeFileSync(bad, bytes);
      assert.throws(() => new Memory(bad), new RegExp(`byte offset ${start}\\b`), `byte ${at} flipped`);
      assert.ok(fs.readFileSync(bad).equals(bytes), `byte ${at}: the file is unchanged`);
      assert.deepEqual(listing(damagedDir), ['memory.mcpmem'], `byte ${at}: no lock or other file is left`);
    }
  }
});

test('two Memory objects on one file in one process see each other\'s changes and lose nothing', () => {
  const dir = tempDir();
  const file = path.join(dir, 'shared.mcpmem');
  const a = new Memory(file);
  const b = new Memory(file);
  try {
    for (let i = 0; i < 20; i++) {
      const [writer, reader] = i % 2 === 0 ? [a, b] : [b, a];
      const name = `e${i}`;
      writer.createEntities([entity(name, 't', [`long enough observation ${'x'.repeat(i)}`])]);
      assert.equal(reader.openNodes([name]).entities.length, 1, `step ${i}: the other object sees it`);
      assert.deepEqual(reader.addObservations([{ entityName: name, contents: [`from the other ${i}`] }]), [
        { entityName: name, addedObservations: [`from the other ${i}`] },
      ]);
      // The same name again from the writer: it knows the name exists now.
      assert.deepEqual(writer.createEntities([entity(name, 't')]), [], `step ${i}: no duplicate`);
      if (i > 0) writer.createRelations([relation(`e${i - 1}`, name, 'next')]);
      assert.deepEqual(listing(dir), ['shared.mcpmem'], `step ${i}: the lock is released after each call`);
    }
    const seenByA = a.readGraph();
    assert.deepEqual(b.readGraph(), seenByA);
    assert.equal(seenByA.entities.length, 20);
    assert.equal(seenByA.relations.length, 19);
    assert.ok(seenByA.entities.every((e, i) => e.observations.length === 2 && e.observations[1] === `from the other ${i}`));
    // Deletions travel too.
    a.deleteEntities(['e0']);
    assert.equal(b.openNodes(['e0']).entities.length, 0);
    assert.equal(b.readGraph().relations.length, 18);
    assert.deepEqual(b.exportJsonl(), a.exportJsonl());
  } finally {
    a.close();
    b.close();
  }
  const reopened = using(file, (m) => m.readGraph());
  assert.equal(reopened.entities.length, 19);
  assert.deepEqual(listing(dir), ['shared.mcpmem']);
});

// Worker threads share their process's pid: a lock held by a sibling thread must be waited
// for, not broken as if an earlier process had left it (core/src/filelog.rs is_stale).
test(
  'Memory objects in worker threads of one process writing at once lose nothing',
  async () => {
    const { Worker } = await import('node:worker_threads');
    const dir = tempDir();
    const file = path.join(dir, 'threads.mcpmem');
    const code = `
      const { workerData, parentPort } = require('node:worker_threads');
      import(workerData.lib).then(({ Memory }) => {
        const memory = new Memory(workerData.file);
        const errors = [];
        for (let i = 0; i < 200; i++) {
          try { memory.createEntities([{ name: 'w' + workerData.w + '-' + i, entityType: 't', observations: [] }]); }
          catch (e) { errors.push(e.message); }
        }
        memory.close();
        parentPort.postMessage(errors);
      });`;
    const lib = new URL('../lib/index.js', import.meta.url).href;
    const results = await Promise.all(
      [0, 1, 2].map(
        (w) =>
          new Promise((resolve, reject) => {
            const worker = new Worker(code, { eval: true, workerData: { file, w, lib } });
            worker.once('message', resolve);
            worker.once('error', reject);
          }),
      ),
    );
    assert.deepEqual(results.flat(), [], 'no call failed');
    assert.equal(using(file, (m) => m.readGraph().entities.length), 600);
  },
);

test('a Memory opened before another one converted the reference file follows it to the new log', () => {
  const dir = tempDir();
  const file = path.join(dir, 'memory.jsonl');
  fs.writeFileSync(file, '{"type":"entity","name":"A","entityType":"t","observations":[]}\n');
  const a = new Memory(file); // converts
  const b = new Memory(file); // opens the converted log
  try {
    a.createEntities([entity('B', 't')]);
    assert.deepEqual(b.readGraph().entities.map((e) => e.name), ['A', 'B']);
    b.createEntities([entity('C', 't')]);
    assert.deepEqual(a.readGraph().entities.map((e) => e.name), ['A', 'B', 'C']);
  } finally {
    a.close();
    b.close();
  }
});

test('durability "sync" keeps every change in the file before the call returns', () => {
  const dir = tempDir();
  const file = path.join(dir, 'sync.mcpmem');
  const memory = Memory.open(file, { durability: 'sync' });
  try {
    const sizes = [];
    for (let i = 0; i < 3; i++) {
      memory.createEntities([entity(`E${i}`, 't')]);
      sizes.push(fs.statSync(file).size);
    }
    assert.ok(sizes[0] < sizes[1] && sizes[1] < sizes[2], `${sizes}`);
    // Another reader sees it while this one is still open.
    assert.deepEqual(using(file, (m) => m.readGraph().entities.map((e) => e.name)), ['E0', 'E1', 'E2']);
  } finally {
    memory.close();
  }
});

test('Memory without a file follows MEMORY_FILE_PATH; memoryPath applies the native binary\'s rules', () => {
  const dir = tempDir();
  const file = path.join(dir, 'env.mcpmem');
  const saved = process.env.MEMORY_FILE_PATH;
  process.env.MEMORY_FILE_PATH = file;
  try {
    const memory = new Memory();
    assert.equal(memory.path, file);
    memory.createEntities([entity('here', 't')]);
    memory.close();
  } finally {
    if (saved === undefined) delete process.env.MEMORY_FILE_PATH;
    else process.env.MEMORY_FILE_PATH = saved;
  }
  assert.deepEqual(using(file, (m) => m.readGraph().entities.map((e) => e.name)), ['here']);

  assert.equal(memoryPath('/a/flag.mcpmem', '/a/env.mcpmem'), '/a/flag.mcpmem', 'the flag wins');
  assert.equal(memoryPath(undefined, '/a/env.mcpmem'), '/a/env.mcpmem');
  assert.equal(memoryPath('~/x.mcpmem', undefined), path.join(os.homedir(), 'x.mcpmem'));
  assert.equal(memoryPath('~', undefined), os.homedir());
  assert.equal(memoryPath('~other/x', undefined), path.resolve('~other/x'), 'only ~ and ~/ expand');
  assert.equal(memoryPath('rel/x.mcpmem', undefined), path.resolve('rel/x.mcpmem'));
  assert.equal(memoryPath(undefined, ''), memoryPath(undefined, undefined), 'empty counts as unset');
  assert.ok(memoryPath(undefined, '').endsWith(path.join('mcp-memory', 'memory.mcpmem')));
});

test(
  'an empty HOME means the account\'s home directory, as for the native binary (not paths under the working directory)',
  { skip: process.platform === 'win32' && 'HOME is not the home directory on Windows' },
  (t) => {
    let home;
    try {
      home = os.userInfo().homedir;
    } catch {
      return t.skip('this account has no entry in the user database');
    }
    const saved = { HOME: process.env.HOME, XDG_DATA_HOME: process.env.XDG_DATA_HOME };
    process.env.HOME = '';
    delete process.env.XDG_DATA_HOME;
    try {
      const sub = process.platform === 'darwin' ? ['Library', 'Application Support'] : ['.local', 'share'];
      assert.equal(memoryPath(undefined, undefined), path.join(home, ...sub, 'mcp-memory', 'memory.mcpmem'));
      assert.equal(memoryPath('~/x.mcpmem', undefined), path.join(home, 'x.mcpmem'));
      assert.equal(memoryPath(undefined, '~'), home);
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  },
);

test('Symbol.dispose closes a Memory (what `using` calls; Node 20 lacks the syntax), and the engine stays private', () => {
  const { file, memory } = fresh();
  memory.createEntities([entity('A', 't')]);
  memory[Symbol.dispose]();
  assert.throws(() => memory.readGraph(), /this memory is closed/);
  memory[Symbol.dispose](); // twice: nothing more
  for (const internal of ['engine', 'inner', 'disk', 'nextId']) {
    assert.equal(memory[internal], undefined, `${internal} is not part of the API`);
  }
  assert.deepEqual(Object.keys(memory), ['path']);
  const again = new Memory(file);
  try {
    assert.deepEqual(again.readGraph().entities.map((e) => e.name), ['A']);
  } finally {
    again[Symbol.dispose]();
  }
});

test('a memory error carries its kind: an unreadable import is IMPORT_REFUSED and changes nothing', () => {
  const { memory } = fresh();
  try {
    memory.createEntities([entity('A', 't')]);
    assert.throws(
      () => memory.importFile('{not json'),
      (e) => e.code === 'IMPORT_REFUSED' && /line 1/.test(e.message),
    );
    assert.deepEqual(memory.readGraph().entities.map((e) => e.name), ['A']);
  } finally {
    memory.close();
  }
});

test('warm() builds the search indexes a slice at a time, and every change made between slices is searched', () => {
  const { file, memory } = fresh();
  for (let call = 0; call < 3; call++) {
    const batch = Array.from({ length: 1000 }, (_, i) => entity(`e${call * 1000 + i}`, 'thing', [`about item ${call * 1000 + i}`]));
    memory.createEntities(batch);
  }
  memory.close();
  using(file, (m) => {
    const marked = [];
    let slices = 0;
    for (; m.warm(); slices++) {
      // A change to an entity early in the graph (held by a build under way) and a new one.
      const marker = `marker${slices}`;
      m.addObservations([{ entityName: `e${slices}`, contents: [marker] }]);
      m.createEntities([entity(`new${slices}`, 'thing', [marker])]);
      marked.push(`e${slices}`, `new${slices}`);
    }
    assert.ok(slices > 3, `built in ${slices} slices, not at once`);
    assert.equal(m.warm(), false, 'nothing left to build');
    const found = m.searchNodes('marker').entities.map((e) => e.name);
    assert.deepEqual(found.sort(), marked.sort());
    const hits = m.callTool('search', { query: 'marker2', mode: 'lexical' }).hits.map((h) => h.name);
    assert.deepEqual(hits.sort(), ['e2', 'new2']);
  });
});
