// The `mcp-memory` command (bin/mcp-memory.js) as a process: MCP over stdio, the command
// line, where the memory file is, damage to it, and several processes on one file. The
// native binary passes the same checks (host-native/tests/stdio.rs).

import test from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import {
  CLI,
  EVERY_RECORD_SESSIONS,
  KILL_AFTER_MS,
  Live,
  NPM_DIR,
  REFERENCE_JSONL,
  assertCatalog,
  assertOk,
  call,
  change,
  childEnv,
  entity,
  everyRecordGraph,
  exec,
  exportSession,
  frames,
  graphOf,
  initialize,
  listing,
  mode,
  npmCmd,
  referenceGraph,
  referenceWritten,
  relation,
  replies,
  replyTo,
  request,
  serve,
  serversShare,
  tempDir,
  withArgs,
} from './helpers.mjs';

const { version } = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

/** The CLI serving `file` through -f. */
const on = (file) => npmCmd('-f', file);
const graph = (file) => graphOf(on(file));
/** Makes one entity through `cmd`, so the file it serves can be found afterwards. */
const mark = (cmd, options) => change(cmd, [['create_entities', { entities: [entity('here', 't')] }]], options);
const names = (g) => g.entities.map((e) => e.name);

// ---------------------------------------------------------------------------------------
// MCP over stdio

test('the stdio server answers initialize, tools/list and tools/call with only JSON-RPC on stdout and logs on stderr', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'memory.jsonl');
  // A conversion with warnings, garbage input and a subscription: lots to log.
  fs.writeFileSync(file, REFERENCE_JSONL);
  const run = await serve(on(file), [
    initialize(1),
    'garbage',
    '[1,2]',
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    request(2, 'tools/list', {}),
    request(3, 'resources/subscribe', { uri: 'memory://knowledge-graph' }),
    call(4, 'create_entities', { entities: [entity('N', 't', ['é 😀'])] }),
    call(5, 'no_such_tool', {}),
    request(6, 'no/such/method', {}),
    call(7, 'read_graph', {}),
  ]);
  assertOk(run);
  const all = replies(run);
  assert.equal(all.length, 8, `7 replies and one notification:\n${run.stdout}`);
  for (const r of all) assert.equal(r.jsonrpc, '2.0', JSON.stringify(r));
  assert.ok(run.stdout.endsWith('\n'));

  const init = replyTo(run, 1).result;
  assert.equal(init.serverInfo.name, 'mcp-memory');
  assert.equal(init.serverInfo.version, version);
  assert.equal(init.protocolVersion, '2025-06-18');
  assertCatalog(replyTo(run, 2).result.tools);
  assert.deepEqual(replyTo(run, 4).result.structuredContent, { entities: [entity('N', 't', ['é 😀'])] });
  assert.ok(all.some((m) => m.method === 'notifications/resources/updated'));
  assert.equal(replyTo(run, 5).result.isError, true);
  assert.equal(replyTo(run, 6).error.code, -32601);
  const expected = referenceGraph();
  expected.entities.push(entity('N', 't', ['é 😀']));
  assert.deepEqual(replyTo(run, 7).result.structuredContent, expected);

  assert.match(run.stderr, /warning/);
  assert.match(run.stderr, /converted/);
  assert.match(run.stderr, /serving .*memory\.jsonl on stdio/);
  for (const line of run.stderr.trimEnd().split('\n')) {
    assert.ok(line.startsWith('mcp-memory'), `stderr lines say who is talking: ${line}`);
  }
});

test('CRLF lines, a last line without a newline and a request split between writes are all answered', async () => {
  const dir = tempDir();
  const child = spawn(process.execPath, on(path.join(dir, 'm.mcpmem')).args, { stdio: 'pipe', timeout: KILL_AFTER_MS });
  const out = [];
  child.stdout.on('data', (c) => out.push(c));
  child.stderr.resume();
  const create = Buffer.from(JSON.stringify(call(2, 'create_entities', { entities: [entity('split é😀', 't')] })) + '\n');
  // Split inside the emoji's UTF-8 bytes, with a pause so the halves arrive apart.
  const cut = create.indexOf(Buffer.from('😀')) + 2;
  child.stdin.write(JSON.stringify(initialize(1)) + '\r\n');
  child.stdin.write(create.subarray(0, cut));
  await new Promise((r) => setTimeout(r, 100));
  child.stdin.write(create.subarray(cut));
  child.stdin.end(JSON.stringify(call(3, 'read_graph', {}))); // no trailing newline
  const status = await new Promise((r) => child.on('close', r));
  assert.equal(status, 0);
  const run = { stdout: Buffer.concat(out).toString('utf8'), stderr: '' };
  assert.equal(replyTo(run, 1).result.serverInfo.name, 'mcp-memory', 'the CR before the newline is dropped');
  assert.deepEqual(replyTo(run, 2).result.structuredContent, { entities: [entity('split é😀', 't')] }, 'the split character is intact');
  assert.deepEqual(names(replyTo(run, 3).result.structuredContent), ['split é😀'], 'the last line is answered at EOF');
});

test('a restart keeps every entity, relation and observation, after records of every kind', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'memory.mcpmem');
  await change(on(file), EVERY_RECORD_SESSIONS[0]);
  await change(on(file), EVERY_RECORD_SESSIONS[1]);
  for (let restart = 0; restart < 3; restart++) assert.deepEqual(await graph(file), everyRecordGraph(), `restart ${restart}`);
  await change(on(file), [['delete_entities', { entityNames: ['Bob'] }]]);
  const expected = everyRecordGraph();
  expected.entities.splice(1, 1);
  expected.relations = expected.relations.filter((r) => r.from !== 'Bob' && r.to !== 'Bob');
  assert.deepEqual(await graph(file), expected);
  assert.deepEqual(listing(dir), ['memory.mcpmem'], 'no lock or temporary file is left behind');
});

// ---------------------------------------------------------------------------------------
// The command line

test('--help and --version print to stdout and exit 0; bad arguments exit non-zero with an error on stderr', async () => {
  for (const flag of ['--help', '-h']) {
    const run = assertOk(await exec(npmCmd(flag)), flag);
    assert.match(run.stdout, /^Usage: mcp-memory/m, flag);
    for (const word of ['serve', 'export', 'import', '--memory-file', 'MEMORY_FILE_PATH', '--durability', '--version']) {
      assert.ok(run.stdout.includes(word), `${flag} mentions ${word}`);
    }
    assert.equal(run.stderr, '');
  }
  for (const flag of ['--version', '-V']) {
    const run = assertOk(await exec(npmCmd(flag)), flag);
    assert.equal(run.stdout, `mcp-memory ${version}\n`);
  }
  const dir = tempDir();
  const file = path.join(dir, 'm.mcpmem');
  for (const args of [
    ['--no-such-flag'],
    ['frobnicate'],
    ['--durability', 'sometimes'],
    ['--transport', 'http'],
    ['serve', 'extra'],
    ['import'],
    ['import', 'a.jsonl', 'b.jsonl'],
    ['export', '--format', 'csv'],
    ['export', 'extra'],
    ['--format', 'jsonl'], // export's options, outside export
    ['serve', '-o', 'out.jsonl'],
    ['import', 'a.jsonl', '--format', 'jsonl'],
    ['-f', ''], // an empty path (an unset variable in a client's config)
  ]) {
    const run = await exec(npmCmd('-f', file, ...args), { cwd: dir });
    // A usage error, as clap reports it for the native binary: status 2 and a pointer to --help.
    assert.equal(run.status, 2, `${args.join(' ')} is refused as a usage error:\n${run.stderr}`);
    assert.equal(run.stdout, '', `${args.join(' ')}: nothing on stdout`);
    assert.match(run.stderr, /^error: .*\n[^]*try '--help'/, args.join(' '));
  }
  assert.deepEqual(listing(dir), [], 'a refused command line creates no memory file');
});

test('export --format jsonl writes the reference server exact bytes to stdout or to -o', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'memory.mcpmem');
  await change(on(file), exportSession());
  const reference = referenceWritten();

  const run = assertOk(await exec(withArgs(on(file), 'export', '--format', 'jsonl')));
  assert.ok(Buffer.from(run.stdout).equals(reference), `export differs from the reference's file:\n${run.stdout}`);
  const byDefault = assertOk(await exec(withArgs(on(file), 'export')));
  assert.equal(byDefault.stdout, run.stdout, 'jsonl is the default format');

  const out = path.join(dir, 'out.jsonl');
  const toFile = assertOk(await exec(withArgs(on(file), 'export', '-o', out)));
  assert.equal(toFile.stdout, '');
  assert.ok(fs.readFileSync(out).equals(reference));
  const long = path.join(dir, 'long.jsonl');
  assertOk(await exec(withArgs(on(file), 'export', '--output', long)));
  assert.ok(fs.readFileSync(long).equals(reference));
});

test('export of a missing memory is empty and creates nothing; of a reference file converts it and writes it back', async () => {
  const dir = tempDir();
  const missing = path.join(dir, 'missing.mcpmem');
  const run = assertOk(await exec(withArgs(on(missing), 'export')));
  assert.equal(run.stdout, '');
  assert.ok(!fs.existsSync(missing), 'export does not create the memory file');

  const file = path.join(dir, 'memory.jsonl');
  const original = referenceWritten();
  fs.writeFileSync(file, original);
  const back = assertOk(await exec(withArgs(on(file), 'export')));
  assert.ok(Buffer.from(back.stdout).equals(original), 'the round trip is byte for byte');
  assert.ok(fs.readFileSync(`${file}.bak`).equals(original));
  assert.match(back.stderr, /converted/, 'the conversion warning goes to stderr, not into the export');
});

test('import FILE merges a reference JSONL file, reports on stderr, and changes nothing for a file it cannot read', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'memory.mcpmem');
  await change(on(file), [
    ['create_entities', { entities: [entity('A', 't', ['a1'])] }],
    ['create_relations', { relations: [relation('A', 'B', 'r')] }],
  ]);
  const input = path.join(dir, 'import.jsonl');
  fs.writeFileSync(
    input,
    '{"type":"entity","name":"A","entityType":"other","observations":["a1","a2"]}\r\n' +
      '{"type":"entity","name":"B","entityType":"t","observations":["b1"]}\n' +
      '\n' +
      '{"type":"relation","from":"A","to":"B","relationType":"r"}\n' +
      '{"type":"relation","from":"B","to":"A","relationType":"s"}\n',
  );
  const before = fs.readFileSync(input);
  const run = assertOk(await exec(withArgs(on(file), 'import', input)));
  assert.equal(run.stdout, '');
  assert.match(run.stderr, /imported 1 new entities, 1 new observations on existing entities, 1 new relations/);
  const expected = {
    entities: [entity('A', 't', ['a1', 'a2']), entity('B', 't', ['b1'])],
    relations: [relation('A', 'B', 'r'), relation('B', 'A', 's')],
  };
  assert.deepEqual(await graph(file), expected);
  assert.ok(fs.readFileSync(input).equals(before), 'the input is read only');

  const again = assertOk(await exec(withArgs(on(file), 'import', input)));
  assert.match(again.stderr, /imported 0 new entities, 0 new observations on existing entities, 0 new relations/);

  const bad = path.join(dir, 'bad.jsonl');
  fs.writeFileSync(bad, '{not json');
  const refused = await exec(withArgs(on(file), 'import', bad));
  assert.equal(refused.status, 65, refused.stderr);
  assert.ok(refused.stderr.startsWith(`Error: ${bad} was not imported: line 1`), refused.stderr);
  const missing = await exec(withArgs(on(file), 'import', path.join(dir, 'no-such.jsonl')));
  assert.notEqual(missing.status, 0);
  assert.match(missing.stderr, /no-such\.jsonl/);
  assert.deepEqual(await graph(file), expected);
});

// ---------------------------------------------------------------------------------------
// Where the memory file is

/** The names tools/list gives from `cmd` run with `env`. */
async function listed(cmd, env) {
  const run = assertOk(await serve(cmd, [request(1, 'tools/list', {})], { env }));
  return replyTo(run, 1).result.tools.map((t) => t.name);
}

test('the profile comes from --profile, else MCP_MEMORY_PROFILE, else default; --tools adjusts it', async () => {
  const file = path.join(tempDir(), 'm.mcpmem');
  const byDefault = await listed(on(file), { MCP_MEMORY_PROFILE: undefined });
  assert.deepEqual(byDefault.slice(9), ['search', 'history', 'undo']);
  assert.equal((await listed(on(file), { MCP_MEMORY_PROFILE: 'reference' })).length, 9);
  assert.equal((await listed(withArgs(on(file), '--profile', 'rust'), { MCP_MEMORY_PROFILE: 'reference' })).length, 26);
  const adjusted = await listed(withArgs(on(file), '--tools', '-search,+get_entity'), { MCP_MEMORY_PROFILE: 'default', MCP_MEMORY_TOOLS: '-undo' });
  assert.deepEqual(adjusted.slice(9), ['get_entity', 'history', 'undo']);
  for (const [flag, value, says] of [['--profile', 'everything', "unknown profile 'everything'"], ['--tools', '+nope', "unknown tool 'nope'"]]) {
    const run = await exec(withArgs(on(file), flag, value));
    assert.equal(run.status, 2, run.stderr);
    assert.match(run.stderr, new RegExp(says));
  }
});

test('MCP_MEMORY_STORE: a path is the memory file (over MEMORY_FILE_PATH); a postgres:// store is the native binary\'s', async () => {
  const dir = tempDir();
  const store = path.join(dir, 'store.mcpmem');
  const other = path.join(dir, 'env.mcpmem');
  await mark(npmCmd(), { env: { MCP_MEMORY_STORE: store, MEMORY_FILE_PATH: other } });
  assert.deepEqual(names(await graph(store)), ['here']);
  assert.ok(!fs.existsSync(other), 'MEMORY_FILE_PATH was ignored');
  const run = await exec(npmCmd(), { env: { MCP_MEMORY_STORE: 'postgres://db.example/memories?memory=team' } });
  assert.notEqual(run.status, 0);
  assert.match(run.stderr, /PostgreSQL store, which the native mcp-memory binary serves/);
  assert.deepEqual(listing(dir).sort(), ['store.mcpmem'], 'and nothing was created');
});

test('MEMORY_FILE_PATH is honoured without -f, and -f wins over it', async () => {
  const dir = tempDir();
  const fromEnv = path.join(dir, 'env.mcpmem');
  await mark(npmCmd(), { env: { MEMORY_FILE_PATH: fromEnv } });
  assert.deepEqual(names(await graph(fromEnv)), ['here']);

  const other = path.join(dir, 'other-env.mcpmem');
  const fromFlag = path.join(dir, 'flag.mcpmem');
  await mark(on(fromFlag), { env: { MEMORY_FILE_PATH: other } });
  assert.ok(!fs.existsSync(other), 'the environment variable was ignored');
  assert.deepEqual(names(await graph(fromFlag)), ['here']);
  const long = path.join(dir, 'long-flag.mcpmem');
  await mark(npmCmd('--memory-file', long), { env: { MEMORY_FILE_PATH: other } });
  assert.ok(fs.existsSync(long) && !fs.existsSync(other));
});

test(
  'without -f, an empty MEMORY_FILE_PATH counts as unset: the memory lives in <data dir>/mcp-memory/memory.mcpmem',
  { skip: process.platform !== 'linux' && 'the data directory checked here is the XDG one' },
  async () => {
    const home = tempDir();
    const xdg = tempDir();
    const env = { HOME: home, XDG_DATA_HOME: xdg, MEMORY_FILE_PATH: '' };
    const run = await mark(npmCmd(), { env });
    const file = path.join(xdg, 'mcp-memory', 'memory.mcpmem');
    assert.ok(fs.statSync(file).isFile(), 'XDG_DATA_HOME is the data directory');
    assert.ok(run.stderr.includes(file), `stderr names the file served:\n${run.stderr}`);
    assert.deepEqual(names(await graphOf(npmCmd(), { env })), ['here']);
    assert.deepEqual(listing(home), [], 'nothing under HOME when XDG_DATA_HOME is set');

    // Without XDG_DATA_HOME (or with a relative one, which the XDG rules ignore): ~/.local/share.
    for (const xdgValue of [undefined, 'relative/dir']) {
      const home2 = tempDir();
      const cwd = tempDir();
      const env2 = { HOME: home2, XDG_DATA_HOME: xdgValue, MEMORY_FILE_PATH: '' };
      await mark(npmCmd(), { env: env2, cwd });
      assert.ok(fs.statSync(path.join(home2, '.local', 'share', 'mcp-memory', 'memory.mcpmem')).isFile(), `XDG_DATA_HOME=${xdgValue}`);
      assert.deepEqual(listing(cwd), [], 'nothing in the working directory');
    }
  },
);

test('~ expands to the home directory in -f and in MEMORY_FILE_PATH', async () => {
  const home = tempDir();
  await mark(npmCmd('-f', '~/flag/m.mcpmem'), { env: { HOME: home } });
  assert.deepEqual(names(await graph(path.join(home, 'flag', 'm.mcpmem'))), ['here']);
  await mark(npmCmd(), { env: { HOME: home, MEMORY_FILE_PATH: '~/env.mcpmem' } });
  assert.deepEqual(names(await graph(path.join(home, 'env.mcpmem'))), ['here']);
  assert.deepEqual(listing(home), ['env.mcpmem', 'flag']);
});

test('relative paths resolve against the working directory, in -f and in MEMORY_FILE_PATH', async () => {
  const cwd = tempDir();
  await mark(npmCmd('-f', 'rel/m.mcpmem'), { cwd });
  assert.deepEqual(names(await graph(path.join(cwd, 'rel', 'm.mcpmem'))), ['here']);
  await mark(npmCmd(), { cwd, env: { MEMORY_FILE_PATH: 'env/m.mcpmem' } });
  assert.deepEqual(names(await graph(path.join(cwd, 'env', 'm.mcpmem'))), ['here']);
});

test('a new memory file is private (mode 0600) and its missing directories are created', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'a', 'b', 'c', 'memory.mcpmem');
  await mark(on(file));
  assert.ok(fs.statSync(file).isFile());
  assert.equal(mode(file).toString(8), '600');
  assert.deepEqual(listing(path.dirname(file)), ['memory.mcpmem']);
});

test('converting a reference file keeps its mode', async () => {
  for (const wanted of [0o640, 0o604, 0o600]) {
    const dir = tempDir();
    const file = path.join(dir, 'memory.jsonl');
    fs.writeFileSync(file, REFERENCE_JSONL);
    fs.chmodSync(file, wanted);
    assert.deepEqual(await graph(file), referenceGraph());
    assert.ok(fs.existsSync(`${file}.bak`));
    assert.equal(mode(file).toString(8), wanted.toString(8), `mode ${wanted.toString(8)} is kept`);
  }
});

test("a Memory MCP file's tag aliases and saved searches beside it come with it, left as they were", async () => {
  const dir = tempDir();
  const file = path.join(dir, 'memory.jsonl');
  fs.writeFileSync(file, REFERENCE_JSONL);
  const aliases = '{"alias":"pal","canonical":"friend","createdAt":"2024-03-02T00:00:00.000Z"}';
  const searches = '{"name":"people","query":"Alice","createdAt":"2024-03-02T00:00:00.000Z","useCount":2}';
  fs.writeFileSync(path.join(dir, 'memory-tag-aliases.jsonl'), aliases);
  fs.writeFileSync(path.join(dir, 'memory-saved-searches.jsonl'), searches);
  const run = await change(withArgs(on(file), '--profile', 'memory-mcp'), [
    ['resolve_tag', { tag: 'pal' }],
    ['list_saved_searches', {}],
  ]);
  assert.equal(replyTo(run, 1).result.structuredContent.resolved, 'friend');
  assert.deepEqual(replyTo(run, 2).result.structuredContent.searches.map((q) => [q.name, q.useCount]), [['people', 2]]);
  assert.match(run.stderr, /read 1 saved searches from memory-saved-searches\.jsonl/);
  assert.equal(fs.readFileSync(path.join(dir, 'memory-tag-aliases.jsonl'), 'utf8'), aliases);
});

// ---------------------------------------------------------------------------------------
// Damage to the memory file

test('a torn tail is cut off with a warning naming the offset, keeping every earlier change', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'memory.mcpmem');
  await change(on(file), [
    ['create_entities', { entities: [entity('A', 't', ['a']), entity('B', 't')] }],
    ['create_relations', { relations: [relation('A', 'B', 'r')] }],
  ]);
  const before = await graph(file);
  const prefix = fs.readFileSync(file);
  await change(on(file), [['add_observations', { observations: [{ entityName: 'B', contents: ['the last change'] }] }]]);
  const full = fs.readFileSync(file);
  assert.ok(full.length > prefix.length + 12);
  // Inside the frame header, just after it, inside the payload, one byte short.
  const cuts = [prefix.length + 1, prefix.length + 12, Math.floor((prefix.length + full.length) / 2), full.length - 1];
  const torn = path.join(dir, 'torn.mcpmem');
  for (const cut of cuts) {
    for (const zeroFill of [false, true]) {
      const bytes = Buffer.alloc(zeroFill ? full.length : cut);
      full.copy(bytes, 0, 0, cut);
      fs.writeFileSync(torn, bytes);
      const what = `cut at ${cut}, zero fill ${zeroFill}`;
      const run = assertOk(await serve(on(torn), [initialize(0), call(1, 'read_graph', {})]), what);
      assert.deepEqual(replyTo(run, 1).result.structuredContent, before, `${what}: all but the last change`);
      assert.match(run.stderr, new RegExp(`warning: .*torn tail at offset ${prefix.length}\\b`), `${what}:\n${run.stderr}`);
      assert.ok(fs.readFileSync(torn).equals(prefix), `${what}: the file is cut back to its valid prefix`);
    }
  }
});

test('a flipped byte before the last frame exits non-zero naming the offset and leaves the file byte-identical', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'memory.mcpmem');
  await change(on(file), [
    ['create_entities', { entities: [entity('A', 't', ['a'])] }],
    ['create_entities', { entities: [entity('B', 't', ['b'])] }],
    ['create_relations', { relations: [relation('A', 'B', 'r')] }],
  ]);
  const good = fs.readFileSync(file);
  const all = frames(good);
  assert.equal(all.length, 3);
  const damaged = tempDir();
  const bad = path.join(damaged, 'memory.mcpmem');
  for (const [start, end] of all.slice(0, -1)) {
    // The len, check and crc words, the first and the last payload byte.
    for (const at of [start, start + 4, start + 8, start + 12, end - 1]) {
      const bytes = Buffer.from(good);
      bytes[at] ^= 0xff;
      fs.writeFileSync(bad, bytes);
      const run = await serve(on(bad), [initialize(0), call(1, 'read_graph', {})]);
      assert.notEqual(run.status, 0, `byte ${at} flipped: the server must refuse to start`);
      assert.equal(run.stdout, '', `byte ${at}: no reply at all`);
      assert.match(run.stderr, new RegExp(`byte offset ${start}\\b`), `byte ${at} (frame at ${start}):\n${run.stderr}`);
      assert.ok(fs.readFileSync(bad).equals(bytes), `byte ${at}: the file is unchanged`);
      assert.deepEqual(listing(damaged), ['memory.mcpmem'], `byte ${at}: no lock or other file is left`);
    }
  }
  // export refuses the same way.
  const bytes = Buffer.from(good);
  bytes[all[0][0] + 12] ^= 0xff;
  fs.writeFileSync(bad, bytes);
  const run = await exec(withArgs(on(bad), 'export'));
  assert.notEqual(run.status, 0);
  assert.equal(run.stdout, '');
  assert.ok(fs.readFileSync(bad).equals(bytes));
});

test('a reference JSONL that cannot be read is left untouched and every tools/call returns isError naming the line', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'memory.jsonl');
  const original = '{"type":"entity","name":"A","entityType":"t","observations":[]}\n{not json\n';
  fs.writeFileSync(file, original);
  const tools = [
    ['create_entities', { entities: [entity('B', 't')] }],
    ['create_relations', { relations: [relation('A', 'B', 'r')] }],
    ['add_observations', { observations: [{ entityName: 'A', contents: ['x'] }] }],
    ['delete_entities', { entityNames: ['A'] }],
    ['delete_observations', { deletions: [{ entityName: 'A', observations: ['x'] }] }],
    ['delete_relations', { relations: [relation('A', 'B', 'r')] }],
    ['read_graph', {}],
    ['search_nodes', { query: 'A' }],
    ['open_nodes', { names: ['A'] }],
  ];
  const run = assertOk(
    await serve(on(file), [
      initialize(0),
      request(1, 'ping', {}),
      request(2, 'tools/list', {}),
      request(3, 'resources/read', { uri: 'memory://knowledge-graph' }),
      ...tools.map(([tool, args], i) => call(10 + i, tool, args)),
    ]),
  );
  assert.equal(replyTo(run, 0).result.serverInfo.name, 'mcp-memory');
  assert.deepEqual(replyTo(run, 1).result, {});
  assertCatalog(replyTo(run, 2).result.tools);
  assert.equal(replyTo(run, 3).error.code, -32603);
  tools.forEach(([tool], i) => {
    const reply = replyTo(run, 10 + i);
    assert.equal(reply.result?.isError, true, `${tool}: ${JSON.stringify(reply)}`);
    assert.match(reply.result.content[0].text, /line 2/, `${tool} names the bad line`);
  });
  assert.match(run.stderr, /line 2/);
  assert.equal(fs.readFileSync(file, 'utf8'), original);
  assert.deepEqual(listing(dir), ['memory.jsonl'], 'no .bak, no temporary file, no lock');
});

// ---------------------------------------------------------------------------------------
// Several processes on one file

test('two servers on one file see each other\'s changes', { timeout: 120_000 }, () => serversShare(on, on, undefined));

test('two servers share a reference file that one of them converted (the other follows the renamed file)', { timeout: 120_000 }, () =>
  serversShare(on, on, REFERENCE_JSONL),
);

test('several CLI processes writing on one file at once lose nothing', { timeout: 120_000 }, async () => {
  const dir = tempDir();
  const file = path.join(dir, 'memory.mcpmem');
  const writers = 4;
  const perWriter = 150;
  const runs = await Promise.all(
    Array.from({ length: writers }, (_, w) =>
      serve(
        on(file),
        Array.from({ length: perWriter }, (_, i) =>
          call(i + 1, 'create_entities', { entities: [entity(`w${w}-${i}`, 't', ['o'])] }),
        ),
      ),
    ),
  );
  runs.forEach((run, w) => {
    assertOk(run, `writer ${w}`);
    const all = replies(run);
    assert.equal(all.length, perWriter, `writer ${w}: a reply to every call`);
    for (const r of all) assert.ok(r.result && !r.result.isError, `writer ${w}: ${JSON.stringify(r)}`);
  });
  const g = await graph(file);
  assert.equal(g.entities.length, writers * perWriter);
  assert.equal(new Set(names(g)).size, writers * perWriter);
  assert.deepEqual(listing(dir), ['memory.mcpmem'], 'the lock is released');
});

test('export and import beside a running server take turns with it', { timeout: 120_000 }, async () => {
  const dir = tempDir();
  const file = path.join(dir, 'memory.mcpmem');
  const server = new Live(on(file));
  try {
    await server.call('create_entities', { entities: [entity('live', 't', ['x'])] });
    const out = assertOk(await exec(withArgs(on(file), 'export')));
    assert.match(out.stdout, /"live"/);
    const extra = path.join(dir, 'extra.jsonl');
    fs.writeFileSync(extra, '{"type":"entity","name":"imported","entityType":"t","observations":[]}');
    assertOk(await exec(withArgs(on(file), 'import', extra)));
    const seen = await server.call('open_nodes', { names: ['imported'] });
    assert.equal(seen.entities[0]?.name, 'imported');
    await server.stop();
  } finally {
    server.kill();
  }
});

test('compact beside a running server drops deleted text older than the history kept, keeps the mode, and the server follows', { timeout: 120_000 }, async () => {
  const dir = tempDir();
  const file = path.join(dir, 'memory.mcpmem');
  const server = new Live(on(file));
  try {
    await server.call('create_entities', { entities: [entity('keep', 't', ['kept fact']), entity('gone', 't', ['secret text'])] });
    await server.call('delete_entities', { entityNames: ['gone'] });
    fs.chmodSync(file, 0o640);
    assert.ok(fs.readFileSync(file).includes('secret text'), 'the history holds the deleted text');
    assertOk(await exec(withArgs(on(file), 'compact')));
    assert.ok(fs.readFileSync(file).includes('secret text'), 'recent history is kept (30 days by default)');
    const out = assertOk(await exec(withArgs(on(file), '--history-days', '0', 'compact')));
    assert.match(out.stderr, /compacted to 1 records/);
    const bytes = fs.readFileSync(file);
    assert.ok(!bytes.includes('secret'), 'deleted text is gone from the file');
    assert.ok(bytes.includes('kept fact'));
    assert.equal(fs.statSync(file).mode & 0o777, 0o640, 'the mode is kept');
    await server.call('add_observations', { observations: [{ entityName: 'keep', contents: ['after compact'] }] });
    await server.stop();
  } finally {
    server.kill();
  }
  assert.deepEqual((await graph(file)).entities, [entity('keep', 't', ['kept fact', 'after compact'])]);
  assert.deepEqual(listing(dir), ['memory.mcpmem']);
});

test('a lock left by a process that is gone, or held too long, is broken with a warning', { timeout: 60_000 }, async () => {
  const dir = tempDir();
  const file = path.join(dir, 'memory.mcpmem');
  await mark(on(file));
  const lock = `${file}.lock`;

  // A pid that no longer runs: a process that has exited.
  const gone = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((r) => gone.on('close', r));
  fs.writeFileSync(lock, `${gone.pid} deadbeef`);
  // Modified in the future: not old, so only the dead owner makes it stale (a host whose
  // liveness check is wrong would wait here until the test's timeout).
  const future = new Date(Date.now() + 3_600_000);
  fs.utimesSync(lock, future, future);
  let run = await change(on(file), [['create_entities', { entities: [entity('after a dead owner', 't')] }]]);
  assert.match(run.stderr, new RegExp(`warning: .*broke a lock .*${gone.pid} deadbeef`), run.stderr);
  assert.ok(!fs.existsSync(lock));

  // A live owner (this test process) whose lock is older than any real hold (30 s).
  fs.writeFileSync(lock, `${process.pid} cafebabe`);
  const old = new Date(Date.now() - 120_000);
  fs.utimesSync(lock, old, old);
  run = await change(on(file), [['create_entities', { entities: [entity('after an old lock', 't')] }]]);
  assert.match(run.stderr, /broke a lock/, run.stderr);
  assert.deepEqual(names(await graph(file)), ['here', 'after a dead owner', 'after an old lock']);
  assert.deepEqual(listing(dir), ['memory.mcpmem']);
});

// ---------------------------------------------------------------------------------------
// verify and repair

/** A log of three changes written by the CLI, its bytes, and its frames. */
async function threeChanges(dir) {
  const file = path.join(dir, 'memory.mcpmem');
  await change(on(file), [
    ['create_entities', { entities: [entity('A', 't', ['a'])] }],
    ['create_entities', { entities: [entity('B', 't', ['b'])] }],
    ['create_relations', { relations: [relation('A', 'B', 'r')] }],
  ]);
  const bytes = fs.readFileSync(file);
  return { file, bytes, frames: frames(bytes) };
}

const verify = (...args) => exec(npmCmd('verify', ...args));

test('verify reports a clean log, a torn tail and a corrupt frame (exit 0, 3, 1) and never changes the file', async () => {
  const dir = tempDir();
  const { file, bytes, frames: all } = await threeChanges(dir);
  let run = await verify(file);
  assert.equal(run.status, 0, run.stderr);
  assert.equal(
    run.stdout,
    `${file}: mcp-memory log, ${bytes.length} bytes: clean\n` +
      'records: 3 (3 stamped; ops: create_entities 2, create_relations 1)\n' +
      'graph: 2 entities, 1 relations, 2 observations\n',
  );

  const torn = path.join(dir, 'torn.mcpmem');
  fs.writeFileSync(torn, bytes.subarray(0, bytes.length - 2));
  run = await verify(torn);
  assert.equal(run.status, 3, run.stderr);
  const last = all[2][0];
  assert.match(run.stdout, /: torn tail \(opens;/);
  assert.match(run.stdout, new RegExp(`\ntorn tail at offset ${last}: the last record is incomplete`));
  assert.match(run.stdout, new RegExp(`\nvalid prefix: ${last} bytes, records: 2 \\(2 stamped; ops: create_entities 2\\)\n`));
  assert.equal(fs.readFileSync(torn).length, bytes.length - 2, 'verify does not cut the tail');

  const bad = path.join(dir, 'bad.mcpmem');
  const flipped = Buffer.from(bytes);
  flipped[all[1][0] + 12] ^= 0xff;
  fs.writeFileSync(bad, flipped);
  run = await verify(bad);
  assert.equal(run.status, 1, run.stderr);
  assert.match(
    run.stdout,
    new RegExp(`\nfirst problem: corrupt record at byte offset ${all[1][0]} \\(record 1\\): checksum mismatch\n`),
  );
  run = await verify('--json', bad);
  assert.equal(run.status, 1);
  const json = JSON.parse(run.stdout);
  assert.equal(json.verdict, 'damaged');
  assert.equal(json.exitCode, 1);
  assert.deepEqual([json.problem.offset, json.problem.record], [all[1][0], 1]);
  assert.equal(json.validLength, all[1][0]);
  assert.ok(fs.readFileSync(bad).equals(flipped), 'verify leaves the file byte-identical');
  assert.deepEqual(listing(dir), ['bad.mcpmem', 'memory.mcpmem', 'torn.mcpmem'], 'no lock or other file');
});

test('verify reads a reference JSONL with the tolerant reader and names its first bad line', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'memory.jsonl');
  fs.writeFileSync(file, REFERENCE_JSONL);
  let run = await verify(file);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /: reference JSONL file \(not an mcp-memory log\), \d+ bytes: clean/);
  assert.match(run.stdout, /\nlines: 7 \(4 entities, 3 relations, 0 skipped, 0 refused\)\n/);
  assert.match(run.stdout, /\nwarning: 2 lone UTF-16 surrogate escape/);
  fs.writeFileSync(file, `${REFERENCE_JSONL}\n{oops\n[1]`);
  run = await verify(file);
  assert.equal(run.status, 1, run.stderr);
  assert.match(run.stdout, /\nfirst problem: line 8: not JSON/);
  assert.match(run.stdout, /\nlines: 9 \(4 entities, 3 relations, 1 skipped, 1 refused\)\n/);
  assert.equal(fs.readFileSync(file, 'utf8'), `${REFERENCE_JSONL}\n{oops\n[1]`, 'not converted');
  assert.deepEqual(listing(dir), ['memory.jsonl']);
});

test('verify of a file it cannot read exits 2; verify and repair options are refused elsewhere', async () => {
  const dir = tempDir();
  let run = await verify(path.join(dir, 'missing'));
  assert.equal(run.status, 2);
  assert.equal(run.stdout, '');
  assert.match(run.stderr, /^Error: cannot read /);
  for (const args of [['verify'], ['verify', 'a', 'b'], ['repair'], ['verify', '--force', 'a'], ['repair', '--json', 'a'], ['export', '--force']]) {
    run = await exec(npmCmd(...args), { cwd: dir });
    assert.equal(run.status, 2, `${args.join(' ')}:\n${run.stderr}`);
    assert.match(run.stderr, /^error: /, args.join(' '));
  }
  assert.deepEqual(listing(dir), []);
});

test('repair writes the valid prefix to a new file with the input mode, refuses to overwrite without --force, and never edits FILE', async () => {
  const dir = tempDir();
  const { file, bytes, frames: all } = await threeChanges(dir);
  const before = await graph(file);
  const bad = path.join(dir, 'bad.mcpmem');
  const damaged = Buffer.concat([bytes, Buffer.from('garbage that is not a frame, long enough')]);
  damaged[all[2][0] + 13] ^= 0xff; // the third record fails its checksum, and bytes follow
  fs.writeFileSync(bad, damaged);
  fs.chmodSync(bad, 0o640);
  let run = await exec(npmCmd('repair', bad));
  assertOk(run);
  const out = `${bad}.repaired`;
  assert.equal(
    run.stdout,
    `${bad}: wrote ${out} (${bad} is unchanged)\n` +
      `kept: 2 records, the first ${all[2][0]} bytes\n` +
      `dropped: ${damaged.length - all[2][0]} bytes from offset ${all[2][0]}\n` +
      `because: corrupt record at byte offset ${all[2][0]} (record 2): checksum mismatch\n`,
  );
  assert.ok(fs.readFileSync(bad).equals(damaged), 'the input is unchanged');
  assert.ok(fs.readFileSync(out).equals(bytes.subarray(0, all[2][0])), 'the output is the valid prefix');
  assert.equal(mode(out).toString(8), '640');
  assert.equal((await verify(out)).status, 0);
  assert.deepEqual((await graph(out)).entities, before.entities, 'both entities are kept; the relation was in the dropped record');

  run = await exec(npmCmd('repair', bad));
  assert.equal(run.status, 1);
  assert.match(run.stderr, /already exists; pass --force/);
  run = await exec(npmCmd('repair', bad, '-o', bad, '--force'));
  assert.equal(run.status, 1);
  assert.match(run.stderr, /is the file being repaired/);
  assert.ok(fs.readFileSync(bad).equals(damaged));
  const other = path.join(dir, 'other.mcpmem');
  assertOk(await exec(npmCmd('repair', bad, '--output', other)));
  fs.writeFileSync(other, 'old');
  assertOk(await exec(npmCmd('repair', bad, '-o', other, '--force')));
  assert.ok(fs.readFileSync(other).equals(bytes.subarray(0, all[2][0])));
});

test('repair of a reference JSONL keeps the lines its reader accepts, verbatim', async () => {
  const dir = tempDir();
  const file = path.join(dir, 'memory.jsonl');
  fs.writeFileSync(file, `{oops\n${REFERENCE_JSONL}\n{"type":"entity","name":5}\n`);
  const run = assertOk(await exec(npmCmd('repair', file)));
  assert.match(run.stdout, /\nkept: 7 lines \(4 entities, 3 relations, 0 skipped\)\ndropped: 2 lines, \d+ bytes: line 1, 9\nbecause: line 1: not JSON/);
  assert.equal(fs.readFileSync(`${file}.repaired`, 'utf8'), `${REFERENCE_JSONL}\n`);
  assert.deepEqual(await graph(`${file}.repaired`), referenceGraph());
});

const NATIVE = process.env.MCP_MEMORY_NATIVE
  ? path.resolve(process.env.MCP_MEMORY_NATIVE)
  : path.resolve(NPM_DIR, '..', 'target', 'release', 'mcp-memory');

test(
  'the native binary prints the same verify and repair reports, exit codes and repaired bytes',
  { skip: !fs.existsSync(NATIVE) && `no native binary at ${NATIVE} (cargo build --release -p mcp-memory-server)` },
  async () => {
    const dir = tempDir();
    const { file, bytes, frames: all } = await threeChanges(dir);
    const flipped = Buffer.from(bytes);
    flipped[all[0][0] + 20] ^= 1;
    const undecodable = Buffer.from(bytes.subarray(0, all[1][0]));
    const payload = Buffer.from([200, 1, 0]);
    const header = Buffer.alloc(12);
    header.writeUInt32LE(payload.length, 0);
    header.writeUInt32LE(~payload.length >>> 0, 4);
    header.writeUInt32LE(crc32(payload), 8);
    const cases = {
      'clean.mcpmem': bytes,
      'torn.mcpmem': bytes.subarray(0, bytes.length - 1),
      'zeros.mcpmem': Buffer.concat([bytes, Buffer.alloc(100)]),
      'corrupt.mcpmem': flipped,
      'undecodable.mcpmem': Buffer.concat([undecodable, header, payload, bytes.subarray(all[1][0])]),
      'header.mcpmem': bytes.subarray(0, 5),
      'newer.mcpmem': Buffer.concat([bytes.subarray(0, 8), Buffer.from([2, 0, 0, 0]), bytes.subarray(12)]),
      'empty.mcpmem': Buffer.alloc(0),
      'reference.jsonl': Buffer.from(REFERENCE_JSONL),
      'bad.jsonl': Buffer.from(`${REFERENCE_JSONL}\n{oops\n\uFEFF[]\n{"type":"relation"}`),
    };
    fs.rmSync(file);
    for (const [name, data] of Object.entries(cases)) {
      const input = path.join(dir, name);
      fs.writeFileSync(input, data);
      for (const args of [['verify', name], ['verify', '--json', name], ['repair', name, '-o', `${name}.HOST`]]) {
        const runs = {};
        for (const [host, cmd] of [
          ['npm', npmCmd()],
          ['native', { command: NATIVE, args: [] }],
        ]) {
          const hostArgs = args.map((a) => a.replace('HOST', host));
          runs[host] = await exec(withArgs(cmd, ...hostArgs), { cwd: dir });
          runs[host].stdout = runs[host].stdout.replaceAll(`.${host}`, '.HOST');
        }
        const what = `${args.join(' ')}`;
        assert.equal(runs.npm.stdout, runs.native.stdout, `${what}: same report`);
        assert.equal(runs.npm.status, runs.native.status, `${what}: same exit code`);
        if (args[0] === 'repair' && runs.npm.status === 0) {
          const [a, b] = ['npm', 'native'].map((host) => fs.readFileSync(path.join(dir, `${name}.${host}`)));
          assert.ok(a.equals(b), `${what}: same repaired bytes`);
        }
      }
      assert.ok(fs.readFileSync(input).equals(data), `${name} is unchanged`);
    }
  },
);

/** CRC-32 (IEEE), as the file format uses. */
function crc32(bytes) {
  let crc = 0xffffffff;
  for (const b of bytes) {
    crc ^= b;
    for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return (crc ^ 0xffffffff) >>> 0;
}

/** The resident memory of a process, in bytes (Linux). */
function rss(pid) {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)[1]) * 1024;
}

test('a client that stops reading does not grow the server: no input is read until stdout drains, and every reply arrives in order', { timeout: 120_000 }, async () => {
  const file = path.join(tempDir(), 'memory.mcpmem');
  const child = spawn(process.execPath, [CLI, '-f', file], { stdio: 'pipe', env: childEnv() });
  child.stderr.resume();
  let buffered = '';
  const got = [];
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (chunk) => {
    buffered += chunk;
    const lines = buffered.split('\n');
    buffered = lines.pop();
    got.push(...lines.map((l) => JSON.parse(l).id));
  });
  const until = async (done) => {
    while (!done()) await new Promise((resolve) => setTimeout(resolve, 20));
  };
  const send = (message) => child.stdin.write(JSON.stringify(message) + '\n');
  const closed = new Promise((resolve) => child.on('close', resolve));
  try {
    // One entity with a 60 KB observation: each read_graph reply is about 130 KB.
    send(initialize(0));
    send(call(1, 'create_entities', { entities: [entity('A', 't', ['x'.repeat(60_000)])] }));
    await until(() => got.length === 2);
    const before = rss(child.pid);

    // 600 replies (about 78 MB) that the client does not read.
    child.stdout.pause();
    const count = 600;
    for (let id = 2; id < 2 + count; id++) send(call(id, 'read_graph', {}));
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const grown = rss(child.pid) - before;
    assert.ok(grown < 30 * 2 ** 20, `the server grew by ${(grown / 2 ** 20).toFixed(1)} MiB while its client did not read`);

    child.stdout.resume();
    await until(() => got.length === 2 + count);
    assert.deepEqual(got.slice(2), Array.from({ length: count }, (_, i) => i + 2), 'every reply, in order');
    child.stdin.end();
    assert.equal(await closed, 0);
  } finally {
    child.kill();
  }
});
