// The native binary and the npm package on the same memory files: each opens what the other
// wrote (records of every kind, converted reference files), both write identical bytes, and
// servers of both kinds running at once share a file under the `<name>.lock` protocol.
//
// The native binary is ../target/release/mcp-memory (from npm/), or $MCP_MEMORY_NATIVE;
// build it first: cargo build --release -p mcp-memory-server.

import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';

import {
  EVERY_RECORD_SESSIONS,
  NPM_DIR,
  Pipelined,
  REFERENCE_JSONL,
  assertOk,
  call,
  change,
  entity,
  everyRecordGraph,
  exec,
  exportSession,
  frames,
  graphOf,
  initialize,
  listing,
  npmCmd,
  referenceGraph,
  relation,
  replies,
  replyTo,
  request,
  serve,
  serversShare,
  tempDir,
  withArgs,
} from './helpers.mjs';

const NATIVE = process.env.MCP_MEMORY_NATIVE
  ? path.resolve(process.env.MCP_MEMORY_NATIVE)
  : path.resolve(NPM_DIR, '..', 'target', 'release', 'mcp-memory');

/** The native binary serving `file`; fails the test if the binary was not built. */
function native(file) {
  if (!fs.existsSync(NATIVE)) {
    assert.fail(
      `the native binary is missing at ${NATIVE}: build it with \`cargo build --release -p mcp-memory-server\` ` +
        'from the repository root, or point MCP_MEMORY_NATIVE at it',
    );
  }
  return { command: NATIVE, args: ['-f', file] };
}

const npm = (file) => npmCmd('-f', file);
const HOSTS = { native, npm };
const PAIRS = [
  ['native', 'npm'],
  ['npm', 'native'],
];

test('the native binary is present (cross-host tests need it)', () => {
  native('unused');
});

test('both hosts write byte-identical files for the same calls (one file format, one encoder)', async () => {
  const dir = tempDir();
  const files = {};
  for (const host of Object.keys(HOSTS)) {
    files[host] = path.join(dir, `${host}.mcpmem`);
    for (const session of EVERY_RECORD_SESSIONS) await change(HOSTS[host](files[host]), session);
  }
  const bytes = fs.readFileSync(files.native);
  frames(bytes);
  assert.ok(fs.readFileSync(files.npm).equals(bytes), 'the npm package wrote other bytes than the native binary');
});

for (const [writer, reader] of PAIRS) {
  test(`a file written by the ${writer} host opens in the ${reader} host with records of every kind, read_graph identical`, async () => {
    const dir = tempDir();
    const file = path.join(dir, 'memory.mcpmem');
    await change(HOSTS[writer](file), EVERY_RECORD_SESSIONS[0]);
    assert.deepEqual(await graphOf(HOSTS[reader](file)), await graphOf(HOSTS[writer](file)), 'after creates and additions');
    await change(HOSTS[writer](file), EVERY_RECORD_SESSIONS[1]);
    const seenByWriter = await graphOf(HOSTS[writer](file));
    assert.deepEqual(seenByWriter, everyRecordGraph());
    assert.deepEqual(await graphOf(HOSTS[reader](file)), seenByWriter, 'after deletions of every kind');

    // The reader appends to the writer's file; the writer reads it back.
    await change(HOSTS[reader](file), [
      ['add_observations', { observations: [{ entityName: 'Alice', contents: [`from the ${reader} host`] }] }],
      ['delete_relations', { relations: [relation('Dave', 'Alice', 'likes')] }],
      ['delete_entities', { entityNames: ['Bob'] }],
      ['delete_observations', { deletions: [{ entityName: 'Dave', observations: ['d'] }] }],
    ]);
    const expected = {
      entities: [entity('Alice', 'person', ['quote " \n é 😀', `from the ${reader} host`]), entity('Dave', 'person', ['d2'])],
      relations: [],
    };
    assert.deepEqual(await graphOf(HOSTS[writer](file)), expected);
    assert.deepEqual(await graphOf(HOSTS[reader](file)), expected);
    assert.deepEqual(listing(dir), ['memory.mcpmem']);
  });

  test(`a reference JSONL with duplicate names converted by the ${writer} host reads the same in the ${reader} host`, async () => {
    const dir = tempDir();
    const file = path.join(dir, 'memory.jsonl');
    fs.writeFileSync(file, REFERENCE_JSONL);
    const converted = await serve(HOSTS[writer](file), [{ jsonrpc: '2.0', id: 1, method: 'ping' }]);
    assertOk(converted);
    assert.match(converted.stderr, /converted/);
    assert.equal(fs.readFileSync(`${file}.bak`, 'utf8'), REFERENCE_JSONL);
    assert.deepEqual(await graphOf(HOSTS[reader](file)), referenceGraph());
    assert.deepEqual(await graphOf(HOSTS[writer](file)), referenceGraph());
    assert.deepEqual(listing(dir), ['memory.jsonl', 'memory.jsonl.bak'], 'the reader did not convert again');

    // Duplicates behave alike: the oldest "Bob" receives observations, delete removes both.
    await change(HOSTS[reader](file), [['add_observations', { observations: [{ entityName: 'Bob', contents: ['third'] }] }]]);
    const expected = referenceGraph();
    expected.entities[1] = entity('Bob', 'person', ['first', 'third']);
    assert.deepEqual(await graphOf(HOSTS[writer](file)), expected);
    await change(HOSTS[writer](file), [['delete_entities', { entityNames: ['Bob'] }]]);
    const afterDelete = {
      entities: [expected.entities[0], expected.entities[3]],
      relations: [relation('Ghost', 'Alice', 'haunts')],
    };
    assert.deepEqual(await graphOf(HOSTS[reader](file)), afterDelete);
    assert.deepEqual(await graphOf(HOSTS[writer](file)), afterDelete);
  });
}

test('both hosts convert a reference file to the same bytes and export the same JSONL', async () => {
  const dir = tempDir();
  const out = {};
  for (const host of Object.keys(HOSTS)) {
    fs.mkdirSync(path.join(dir, host));
    const file = path.join(dir, host, 'memory.jsonl');
    fs.writeFileSync(file, REFERENCE_JSONL);
    const run = assertOk(await exec(withArgs(HOSTS[host](file), 'export')));
    out[host] = { log: fs.readFileSync(file), jsonl: run.stdout };
  }
  assert.ok(out.npm.log.equals(out.native.log), 'converted logs differ');
  assert.equal(out.npm.jsonl, out.native.jsonl, 'exports differ');

  const session = path.join(dir, 'session.mcpmem');
  await change(native(session), exportSession());
  const byNative = assertOk(await exec(withArgs(native(session), 'export')));
  const byNpm = assertOk(await exec(withArgs(npm(session), 'export')));
  assert.equal(byNpm.stdout, byNative.stdout);
});

test('export --format log gives the same compacted log from both hosts, and each host imports it into the same graph', async () => {
  const dir = tempDir();
  const session = path.join(dir, 'session.mcpmem');
  for (const calls of EVERY_RECORD_SESSIONS) await change(native(session), calls);
  const logs = {};
  for (const host of Object.keys(HOSTS)) {
    const out = path.join(dir, `${host}.export.mcpmem`);
    assertOk(await exec(withArgs(HOSTS[host](session), 'export', '--format', 'log', '-o', out)));
    logs[host] = fs.readFileSync(out);
    assert.ok(frames(logs[host]).length > 0, `${host}: the export is a log with records`);
  }
  assert.ok(logs.npm.equals(logs.native), 'the hosts export different logs');
  const missing = path.join(dir, 'missing.mcpmem');
  const empty = {};
  for (const host of Object.keys(HOSTS)) {
    const out = path.join(dir, `${host}.empty.mcpmem`);
    assertOk(await exec(withArgs(HOSTS[host](missing), 'export', '--format', 'log', '-o', out)));
    empty[host] = fs.readFileSync(out);
  }
  assert.ok(empty.npm.equals(empty.native) && frames(empty.npm).length === 0, 'a missing memory exports as an empty log');
  assert.ok(!fs.existsSync(missing));

  const want = await graphOf(native(session));
  for (const [host, from] of [['native', 'npm'], ['npm', 'native']]) {
    const target = path.join(dir, `${host}.imported.mcpmem`);
    const run = assertOk(await exec(withArgs(HOSTS[host](target), 'import', path.join(dir, `${from}.export.mcpmem`))));
    assert.match(run.stderr, /copied the log's \d+ records into the empty memory: \d+ entities and \d+ relations/);
    assert.deepEqual(await graphOf(HOSTS[host](target)), want, `${host} imported a different graph`);
  }
});

test('one session gets byte-identical stdout and memory files from both hosts (odd lines, bad UTF-8, a 3 MiB line)', async () => {
  const dir = tempDir();
  const json = (m) => Buffer.from(JSON.stringify(m) + '\n');
  const big = 'x'.repeat(3 * 1024 * 1024);
  const input = Buffer.concat([
    json(initialize(1)),
    Buffer.from('\n   \ngarbage\n[1,2]\n[]\n{}\nnull\n'),
    json({ jsonrpc: '2.0', method: 'notifications/initialized' }),
    Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }) + '\r\n'),
    json({ jsonrpc: '2.0', id: 's', method: 'resources/subscribe', params: { uri: 'memory://knowledge-graph' } }),
    json(call(3, 'create_entities', { entities: [entity('A', 't', ['é 😀', '\u0001'])] })),
    Buffer.from('{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"create_entities","arguments":{"entities":[{"name":"lone \\ud800","entityType":"t","observations":[]}]}}}\n'),
    Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"create_entities","arguments":{"entities":[{"name":"bad '),
      Buffer.from([0xff, 0xfe]),
      Buffer.from(' utf8","entityType":"t","observations":[]}]}}}\n'),
    ]),
    json(call(6, 'add_observations', { observations: [{ entityName: 'nope', contents: ['x'] }] })),
    json(call(7, 'add_observations', { observations: [{ entityName: 'A', contents: [big] }] })),
    json({ jsonrpc: '2.0', id: 8, method: 'tools/call', params: { name: 'read_graph' } }),
    json({ jsonrpc: '2.0', id: 9, method: 'resources/read', params: { uri: 'memory://knowledge-graph' } }),
    json({ jsonrpc: '2.0', id: 10, method: 'no/such/method' }),
    json({ jsonrpc: '1.0', id: 11, method: 'ping' }),
    json({ id: 12, method: 'ping' }),
    json({ jsonrpc: '2.0', id: null, method: 'ping' }),
    json({ jsonrpc: '2.0', id: 13, result: {} }),
    json(call(14, 'search_nodes', { query: 'É' })),
    json(call(15, 'delete_observations', { deletions: [{ entityName: 'A', observations: [big] }] })),
    Buffer.from(JSON.stringify(call(16, 'read_graph', {}))), // no newline at the end
  ]);
  const out = {};
  for (const [host, cmd] of Object.entries(HOSTS)) {
    const file = path.join(dir, `${host}.mcpmem`);
    const run = assertOk(await exec(cmd(file), { input }), host);
    out[host] = { stdout: run.stdout, file: fs.readFileSync(file) };
  }
  assert.ok(replies({ stdout: out.native.stdout }).length >= 16, out.native.stdout.slice(0, 2000));
  assert.ok(out.npm.stdout === out.native.stdout, 'the hosts answered differently');
  assert.ok(out.npm.file.equals(out.native.file), 'the hosts wrote different files');
});

test('both hosts accept and refuse the same command lines, with the same exit status and the same files made', async () => {
  native('unused');
  const jsonl = '{"type":"entity","name":"A","entityType":"t","observations":[]}\n';
  const cases = [
    [],
    ['serve'],
    ['--durability', 'sync'],
    ['--durability=sync', 'serve'],
    ['--transport', 'stdio'],
    ['-fshort.mcpmem'],
    ['export'],
    ['export', '--format', 'jsonl', '-o', 'out.jsonl'],
    ['import', 'in.jsonl'],
    ['--version'],
    ['--help'],
    ['--no-such-flag'],
    ['frobnicate'],
    ['--durability', 'sometimes'],
    ['--transport', 'pigeon'],
    ['serve', 'extra'],
    ['import'],
    ['import', 'in.jsonl', 'more.jsonl'],
    ['import', 'missing.jsonl'],
    ['import', 'bad.jsonl'],
    ['export', '--format', 'csv'],
    ['export', 'extra'],
    ['export', '-o'],
    ['--format', 'jsonl'],
    ['-f', ''],
  ];
  for (const args of cases) {
    const seen = {};
    for (const [host, cmd] of [
      ['native', { command: NATIVE, args: [] }],
      ['npm', npmCmd()],
    ]) {
      const cwd = tempDir();
      fs.writeFileSync(path.join(cwd, 'in.jsonl'), jsonl);
      fs.writeFileSync(path.join(cwd, 'bad.jsonl'), '{not json\n');
      const env = { MEMORY_FILE_PATH: 'memory.mcpmem' }; // relative: inside cwd
      const run = await exec({ command: cmd.command, args: [...cmd.args, ...args] }, { cwd, env });
      seen[host] = {
        status: run.status,
        stdout: args.includes('--help') ? '(help)' : run.stdout,
        files: listing(cwd),
      };
    }
    assert.deepEqual(seen.npm, seen.native, `mcp-memory ${args.join(' ')}`);
  }
});

test('sessions alternating between the hosts on one file keep every change', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'memory.mcpmem');
  const order = ['native', 'npm', 'native', 'npm', 'npm', 'native'];
  const expectedNames = [];
  for (const [i, host] of order.entries()) {
    await change(HOSTS[host](file), [
      ['create_entities', { entities: [entity(`s${i}`, host, [`by ${host}`])] }],
      ...(i > 0 ? [['create_relations', { relations: [relation(`s${i - 1}`, `s${i}`, 'then')] }]] : []),
    ]);
    expectedNames.push(`s${i}`);
    for (const other of Object.keys(HOSTS)) {
      const g = await graphOf(HOSTS[other](file));
      assert.deepEqual(g.entities.map((e) => e.name), expectedNames, `after session ${i} (${host}), read by ${other}`);
      assert.equal(g.relations.length, i);
    }
  }
});

test('a native server and an npm server running at once on one file see each other\'s changes', { timeout: 120_000 }, () =>
  serversShare(native, npm, undefined),
);

test('a native and an npm server share a reference file the native one converted while the other had it open', { timeout: 120_000 }, () =>
  serversShare(native, npm, REFERENCE_JSONL),
);

test('two native and two npm servers writing 1,000 times each on one file at once lose nothing, and each sees all 4,000 writes', { timeout: 180_000 }, async (t) => {
  const dir = tempDir();
  const file = path.join(dir, 'memory.mcpmem');
  const writers = ['native', 'npm', 'native', 'npm'];
  const perWriter = 1000;
  // Requests each writer keeps in flight: the servers always have a write waiting, so
  // they contend for the lock at every message.
  const window = 4;
  const sessions = writers.map((host) => new Pipelined(HOSTS[host](file)));
  try {
    await Promise.all(sessions.map((s) => s.request('initialize', initialize(0).params)));
    const started = performance.now();
    await Promise.all(
      sessions.map(async (s, w) => {
        let next = 0;
        const lane = async () => {
          while (next < perWriter) {
            const i = next++;
            await s.call('create_entities', { entities: [entity(`w${w}-${i}`, writers[w], [`write ${i} of ${w}`])] });
          }
        };
        await Promise.all(Array.from({ length: window }, lane));
      }),
    );
    const writing = performance.now() - started;

    // Every server, still running, sees every write of every process.
    const total = writers.length * perWriter;
    for (const [w, s] of sessions.entries()) {
      const stats = await s.call('graph_stats', {});
      assert.equal(stats.entityCount, total, `server ${w} (${writers[w]}) counts every entity`);
      assert.equal(stats.observationCount, total, `server ${w} (${writers[w]}) counts every observation`);
      const g = await s.call('read_graph', {});
      const names = g.entities.map((e) => e.name);
      assert.equal(new Set(names).size, total, `server ${w} (${writers[w]}) sees every entity once`);
      for (let v = 0; v < writers.length; v++) {
        // A process's writes are in the file in the order it sent them (i ascending).
        const mine = g.entities.filter((e) => e.name.startsWith(`w${v}-`));
        assert.deepEqual(
          mine.map((e) => e.name),
          Array.from({ length: perWriter }, (_, i) => `w${v}-${i}`),
          `server ${w} sees all of writer ${v}, in the order it wrote them`,
        );
        for (const [i, e] of mine.entries()) {
          assert.deepEqual(e.observations, [`write ${i} of ${v}`], e.name);
          assert.equal(e.entityType, writers[v], e.name);
        }
      }
      if (w === 0) {
        // Not a property of the servers, a check that this test tested something: the
        // writers' records are interleaved in the file.
        assert.ok(switches(names) > 0, 'the writers ran one after another, not at once');
        t.diagnostic(`the records switch writer ${switches(names)} times`);
      }
    }
    const records = frames(fs.readFileSync(file));
    assert.equal(records.length, total, 'one record per write: none lost, none written twice');
    for (const s of sessions) await s.stop();
    // Beside the file, only the search indexes the first to close saved with its checkpoint.
    assert.deepEqual(listing(dir), ['memory.mcpmem', 'memory.mcpmem.indexes'], 'the lock is released');
    const g = await graphOf(npm(file));
    assert.equal(g.entities.length, total, 'a new process reads them all');
    t.diagnostic(`${total} writes by ${writers.join(', ')} (window ${window}) took ${(writing / 1000).toFixed(1)} s`);
  } finally {
    for (const s of sessions) s.kill();
  }
});

/** How often consecutive names (`w<writer>-<i>`) change writer: 0 if the writers never ran at once. */
function switches(names) {
  let n = 0;
  for (let i = 1; i < names.length; i++) if (names[i].split('-')[0] !== names[i - 1].split('-')[0]) n++;
  return n;
}

test('neither host writes while another live process holds <name>.lock, and both proceed once it is released', { timeout: 120_000 }, async () => {
  const dir = tempDir();
  const file = path.join(dir, 'memory.mcpmem');
  await change(npm(file), [['create_entities', { entities: [entity('before', 't')] }]]);
  const before = fs.readFileSync(file);
  const lock = `${file}.lock`;
  // Held by this test process: alive, and fresh (modified in the future, so never old).
  fs.writeFileSync(lock, `${process.pid} held-by-the-test`);
  const future = new Date(Date.now() + 3_600_000);
  fs.utimesSync(lock, future, future);

  const pending = Object.keys(HOSTS).map((host) =>
    serve(HOSTS[host](file), [call(1, 'create_entities', { entities: [entity(`by ${host}`, 't')] })]).then((run) => ({ host, run })),
  );
  let finished = null;
  Promise.race(pending).then((first) => (finished = first.host));
  // Give both a chance to misbehave; a host that ignores the lock writes meanwhile.
  await new Promise((r) => setTimeout(r, 1000));
  assert.equal(finished, null, 'a host answered while the lock was held by someone else');
  assert.ok(fs.readFileSync(file).equals(before), 'a host wrote while the lock was held by someone else');
  assert.equal(fs.readFileSync(lock, 'utf8'), `${process.pid} held-by-the-test`, 'the live lock was not broken');

  fs.rmSync(lock);
  for (const { host, run } of await Promise.all(pending)) {
    assertOk(run, host);
    assert.equal(replies(run)[0]?.result?.isError, undefined, `${host}: ${run.stdout}`);
  }
  const g = await graphOf(native(file));
  assert.deepEqual(g.entities.map((e) => e.name).sort(), ['before', 'by native', 'by npm']);
  assert.deepEqual(listing(dir), ['memory.mcpmem']);
});

test('the search indexes either host saves beside a memory are the same bytes, and each host reads the other\'s: the same answers as without them', async () => {
  const dir = tempDir();
  // Large enough for closing to save its indexes (memories under 256 KiB build them faster).
  const calls = Array.from({ length: 6 }, (_, c) => [
    'create_entities',
    {
      entities: Array.from({ length: 500 }, (_, i) =>
        entity(`e${c}-${i}`, c % 2 ? 'person' : 'place', [`item ${c} ${i} keeps a note about coffee, hiking and Lisbon`]),
      ),
    },
  ]);
  const saved = {};
  for (const host of Object.keys(HOSTS)) {
    const file = path.join(dir, `${host}.mcpmem`);
    await change(HOSTS[host](file), calls);
    saved[host] = fs.readFileSync(`${file}.indexes`);
  }
  assert.ok(saved.native.length > 100_000, `${saved.native.length} bytes`);
  assert.ok(saved.native.equals(saved.npm), 'the hosts saved different indexes for the same memory');
  const questions = [
    call(1, 'search_nodes', { query: 'e3-17' }),
    call(2, 'search', { query: 'someone who likes walking in the mountains', limit: 5 }),
    call(3, 'search', { query: 'coffee Lisbon', mode: 'lexical', limit: 5 }),
    call(4, 'search_nodes', { query: 'item 5 49' }),
  ];
  const answers = async (cmd) => {
    const run = assertOk(await serve(cmd, [initialize(0), ...questions]));
    return questions.map((q) => replyTo(run, q.id).result);
  };
  for (const [writer, reader] of PAIRS) {
    const file = path.join(dir, `${writer}.mcpmem`);
    const withSaved = await answers(HOSTS[reader](file));
    fs.renameSync(`${file}.indexes`, `${file}.aside`);
    const built = await answers(HOSTS[reader](file));
    fs.renameSync(`${file}.aside`, `${file}.indexes`);
    assert.deepEqual(withSaved, built, `the ${reader} host reading the ${writer} host's saved indexes`);
  }
});
