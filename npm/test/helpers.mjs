// Shared helpers of the npm package's tests (not a test file: package.json runs
// test/*.test.mjs). Processes, MCP messages, memory files and the repository's fixtures.

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';

/** The npm package's directory. */
export const NPM_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The repository's root. */
export const ROOT = path.resolve(NPM_DIR, '..');
/** The package's command line. */
export const CLI = path.join(NPM_DIR, 'bin', 'mcp-memory.js');
/** Fixtures the native host's tests use (recorded from the reference server). */
export const NATIVE_FIXTURES = path.join(ROOT, 'host-native', 'tests', 'fixtures');
/** Frozen memory files every version must open. */
export const CORE_FIXTURES = path.join(ROOT, 'core', 'tests', 'fixtures');

/** The magic every memory log starts with ("\x89MCPMEM\n"). */
export const MAGIC = Buffer.from([0x89, 0x4d, 0x43, 0x50, 0x4d, 0x45, 0x4d, 0x0a]);
export const HEADER_LEN = 16;
export const FRAME_HEADER_LEN = 12;

const temps = [];
process.on('exit', () => {
  for (const dir of temps) fs.rmSync(dir, { recursive: true, force: true });
});

/** A new empty directory under the OS's temp directory, removed when the process exits. */
export function tempDir(prefix = 'mcp-memory-test-') {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  temps.push(dir);
  return dir;
}

/** Names in a directory, sorted. */
export function listing(dir) {
  return fs.readdirSync(dir).sort();
}

export function mode(file) {
  return fs.statSync(file).mode & 0o777;
}

// ---------------------------------------------------------------------------------------
// Processes

/**
 * The environment of a child process: this one's with the clock pinned and every tool
 * answered (profile all), without MEMORY_FILE_PATH (tests set it explicitly) or node:test's
 * markers, with `env` applied (`undefined` removes a variable).
 */
export function childEnv(env = {}) {
  // A pinned clock (both hosts): the same calls write the same bytes.
  const out = { MCP_MEMORY_NOW: '1700000000000', MCP_MEMORY_PROFILE: 'all', ...process.env };
  delete out.MEMORY_FILE_PATH;
  delete out.NODE_TEST_CONTEXT;
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete out[k];
    else out[k] = v;
  }
  return out;
}

/**
 * Starts the native binary `native` over HTTP on a free loopback port, with `args` (the
 * memory file, a token file, a profile…) and `env` applied to childEnv, killed after
 * `timeout` ms (0: never); resolves to `{ child, url }` (`url`: the server's base, without
 * /mcp) once it printed its address.
 */
export async function nativeHttp(native, args = [], env = {}, { timeout = KILL_AFTER_MS } = {}) {
  const child = spawn(native, ['--transport', 'http', '--bind', '127.0.0.1:0', ...args], {
    env: childEnv(env),
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout,
  });
  const url = await new Promise((resolve, reject) => {
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
      const m = /(http:\/\/\S+)\/mcp/.exec(stderr);
      if (m) resolve(m[1]);
    });
    child.on('close', () => reject(new Error(`server exited: ${stderr}`)));
  });
  return { child, url };
}

/**
 * Calls tool `name` through `<url>/mcp` as an MCP 2026-07-28 client named `client` (with
 * the bearer `token`, if any); resolves to its structuredContent, throws with the reply when
 * the call failed.
 */
export async function callModern(url, name, args, { token, client = 'test' } = {}) {
  const headers = {
    'Content-Type': 'application/json', Accept: 'application/json, text/event-stream',
    'MCP-Protocol-Version': '2026-07-28', 'Mcp-Method': 'tools/call', 'Mcp-Name': name,
  };
  if (token) headers.Authorization = `Bearer ${token}`;
  const response = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args, _meta: {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {},
      'io.modelcontextprotocol/clientInfo': { name: client, version: '1' } } } }),
  });
  const reply = await response.json();
  if (reply.error || reply.result.isError) throw new Error(JSON.stringify(reply));
  return reply.result.structuredContent;
}

/** A command to run: `{ command, args }`. The package's CLI with these arguments: */
export function npmCmd(...args) {
  return { command: process.execPath, args: [CLI, ...args] };
}

/** `cmd` with more arguments. */
export function withArgs(cmd, ...args) {
  return { ...cmd, args: [...cmd.args, ...args] };
}

/**
 * A hang guard, not a timing check: a child still running after this long is killed (so a
 * stuck process fails its test instead of keeping the test file alive forever).
 */
export const KILL_AFTER_MS = 120_000;

/**
 * Runs `cmd` with `input` on stdin (then EOF); resolves with
 * `{ status, signal, stdout, stderr }` once it exited.
 */
export function exec(cmd, { input = '', env, cwd } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd.command, cmd.args, { env: childEnv(env), cwd, stdio: 'pipe', timeout: KILL_AFTER_MS });
    const out = [];
    const err = [];
    child.stdout.on('data', (c) => out.push(c));
    child.stderr.on('data', (c) => err.push(c));
    child.on('error', reject);
    // The process may exit before it read everything (a refused file): not our concern.
    child.stdin.on('error', () => {});
    child.stdin.end(input);
    child.on('close', (status, signal) =>
      resolve({
        status,
        signal,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      }),
    );
  });
}

/** Asserts that a run exited with status 0. */
export function assertOk(run, what = 'the process') {
  assert.equal(run.status, 0, `${what} exited with ${run.status ?? run.signal}; stderr:\n${run.stderr}`);
  return run;
}

/** Every stdout line of a run, parsed; fails on a line that is not JSON. */
export function replies(run) {
  return run.stdout
    .split('\n')
    .filter((l, i, all) => !(l === '' && i === all.length - 1))
    .map((l) => {
      try {
        return JSON.parse(l);
      } catch (e) {
        assert.fail(`stdout line is not JSON (${e.message}): ${JSON.stringify(l)}`);
      }
    });
}

/** The reply with this id (not a request or notification that happens to carry one). */
export function replyTo(run, id) {
  const reply = replies(run).find((r) => r.id === id && r.method === undefined);
  assert.ok(reply, `no reply with id ${id}; stdout:\n${run.stdout}\nstderr:\n${run.stderr}`);
  return reply;
}

// ---------------------------------------------------------------------------------------
// MCP messages

export function initialize(id) {
  return {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'npm-test', version: '1' } },
  };
}

export function request(id, method, params) {
  return params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
}

export function call(id, tool, args) {
  return request(id, 'tools/call', { name: tool, arguments: args });
}

export function entity(name, entityType, observations = []) {
  return { name, entityType, observations };
}

export function relation(from, to, relationType) {
  return { from, to, relationType };
}

/** Messages as stdin: one JSON line each. */
export function lines(messages) {
  return messages.map((m) => (typeof m === 'string' ? m : JSON.stringify(m)) + '\n').join('');
}

/** Runs `cmd` serving these messages. */
export function serve(cmd, messages, options = {}) {
  return exec(cmd, { ...options, input: lines(messages) });
}

/** Makes these tool calls (`[tool, args]`) in one session of `cmd`; each must succeed. */
export async function change(cmd, calls, options = {}) {
  const run = await serve(cmd, [initialize(0), ...calls.map(([tool, args], i) => call(i + 1, tool, args))], options);
  assertOk(run);
  calls.forEach(([tool], i) => {
    const reply = replyTo(run, i + 1);
    assert.ok(reply.result && !reply.result.isError, `call ${i + 1} (${tool}) failed: ${JSON.stringify(reply)}`);
  });
  return run;
}

/** The whole graph (read_graph's structuredContent) of the memory `cmd` serves. */
export async function graphOf(cmd, options = {}) {
  const run = assertOk(await serve(cmd, [initialize(0), call(1, 'read_graph', {})], options));
  const reply = replyTo(run, 1);
  assert.ok(reply.result && !reply.result.isError, JSON.stringify(reply));
  return reply.result.structuredContent;
}

/** A server process kept running, spoken to one request at a time. */
/**
 * A running server spoken to over stdio; subclasses decide how replies meet requests
 * (`request`). Holds its stderr, and settles `exited` when it ends.
 */
class ServerProcess {
  constructor(cmd, { env, cwd } = {}, onLine) {
    this.child = spawn(cmd.command, cmd.args, { env: childEnv(env), cwd, stdio: 'pipe', timeout: KILL_AFTER_MS });
    this.stderr = '';
    this.child.stderr.on('data', (c) => (this.stderr += c));
    this.child.stdin.on('error', () => {});
    this.closed = false;
    this.nextId = 0;
    readline.createInterface({ input: this.child.stdout }).on('line', onLine);
    this.exited = new Promise((resolve) => {
      this.child.on('close', (status, signal) => {
        this.closed = true;
        this.exitedBeforeReplying(new Error(`the server exited (${status ?? signal}) before replying; stderr:\n${this.stderr}`));
        resolve({ status, signal });
      });
    });
  }

  /** Calls a tool; resolves with its structuredContent; fails on an error result. */
  async call(tool, args) {
    const reply = await this.request('tools/call', { name: tool, arguments: args });
    assert.ok(reply.result && !reply.result.isError, `${tool}: ${JSON.stringify(reply)}`);
    return reply.result.structuredContent;
  }

  /** Closes stdin and waits for a clean exit. */
  async stop() {
    this.child.stdin.end();
    const { status, signal } = await this.exited;
    assert.equal(status, 0, `the server exited with ${status ?? signal}; stderr:\n${this.stderr}`);
  }

  kill() {
    if (!this.closed) this.child.kill();
  }
}

/** A running server spoken to one request at a time: each waits for its reply. */
export class Live extends ServerProcess {
  constructor(cmd, options) {
    super(cmd, options, (line) => {
      const w = this.waiting.shift();
      if (w) w.resolve(line);
      else this.queue.push(line);
    });
    this.queue = [];
    this.waiting = [];
  }

  exitedBeforeReplying(error) {
    for (const w of this.waiting.splice(0)) w.reject(error);
  }

  line() {
    if (this.queue.length) return Promise.resolve(this.queue.shift());
    if (this.closed) return Promise.reject(new Error(`the server exited; stderr:\n${this.stderr}`));
    return new Promise((resolve, reject) => this.waiting.push({ resolve, reject }));
  }

  /** Sends a request; resolves with its reply (notifications before it are skipped). */
  async request(method, params) {
    const id = ++this.nextId;
    this.child.stdin.write(JSON.stringify(request(id, method, params)) + '\n');
    for (;;) {
      const message = JSON.parse(await this.line());
      if (message.id === id && message.method === undefined) return message;
    }
  }
}

/**
 * A running server spoken to as a client would: requests are written as they are made and
 * replies are matched to them by id, so several requests can be in flight.
 */
export class Pipelined extends ServerProcess {
  constructor(cmd, options) {
    super(cmd, options, (line) => {
      const message = JSON.parse(line);
      if (message.method !== undefined) return; // a notification
      const waiter = this.pending.get(message.id);
      if (!waiter) {
        this.stray = `a reply to no request: ${line}`;
        return;
      }
      this.pending.delete(message.id);
      waiter.resolve(message);
    });
    this.pending = new Map();
  }

  exitedBeforeReplying(error) {
    for (const waiter of this.pending.values()) waiter.reject(error);
    this.pending.clear();
  }

  /** Sends a request; resolves with its reply. */
  request(method, params) {
    if (this.closed) return Promise.reject(new Error(`the server exited; stderr:\n${this.stderr}`));
    const id = ++this.nextId;
    const reply = new Promise((resolve, reject) => this.pending.set(id, { resolve, reject }));
    this.child.stdin.write(JSON.stringify(request(id, method, params)) + '\n');
    return reply;
  }

  /** Closes stdin, waits for a clean exit, and checks no reply went to no request. */
  async stop() {
    await super.stop();
    assert.equal(this.stray, undefined);
  }
}

/**
 * Two servers on one file (started by `launchA(file)` and `launchB(file)`, from a new file or
 * from `startFrom`'s reference JSONL, which the first converts while the other has it open)
 * take turns: each sees the other's creations, additions and deletions at its next call,
 * and the file holds what both saw, for either kind of server.
 */
export async function serversShare(launchA, launchB, startFrom) {
  const dir = tempDir();
  const file = path.join(dir, 'memory.jsonl');
  if (startFrom !== undefined) fs.writeFileSync(file, startFrom);
  const [baseEntities, baseRelations] =
    startFrom === undefined ? [0, 0] : [referenceGraph().entities.length, referenceGraph().relations.length];
  const a = new Live(launchA(file));
  const b = new Live(launchB(file));
  try {
    const long = 'an observation long enough to make frames of different sizes';
    for (let i = 0; i < 12; i++) {
      const [writer, reader] = i % 2 === 0 ? [a, b] : [b, a];
      const name = `e${i}`;
      await writer.call('create_entities', { entities: [entity(name, 't', [long])] });
      const seen = await reader.call('open_nodes', { names: [name] });
      assert.deepEqual(seen.entities[0]?.observations, [long], `step ${i}`);
      await reader.call('add_observations', { observations: [{ entityName: name, contents: [`from the other ${i}`] }] });
      if (i > 0) await writer.call('create_relations', { relations: [relation(`e${i - 1}`, name, 'next')] });
      if (i === 6) {
        await reader.call('delete_observations', { deletions: [{ entityName: 'e0', observations: [long] }] });
        await writer.call('delete_relations', { relations: [relation('e0', 'e1', 'next')] });
      }
    }
    await b.call('delete_entities', { entityNames: ['e11'] });
    const seenByA = await a.call('read_graph', {});
    assert.deepEqual(await b.call('read_graph', {}), seenByA);
    assert.equal(seenByA.entities.length, baseEntities + 11);
    assert.equal(seenByA.relations.length - baseRelations, 9);
    await a.stop();
    await b.stop();
    assert.deepEqual(await graphOf(launchA(file)), seenByA, 'the file holds what both saw');
    assert.deepEqual(await graphOf(launchB(file)), seenByA, 'the file holds what both saw');
  } finally {
    a.kill();
    b.kill();
  }
}

// ---------------------------------------------------------------------------------------
// Memory files

/** `[start, end)` of each frame of a memory log (docs/file-format.md). */
export function frames(log) {
  assert.ok(log.subarray(0, 8).equals(MAGIC), 'the file starts with the log magic');
  const out = [];
  let at = HEADER_LEN;
  while (at < log.length) {
    const len = log.readUInt32LE(at);
    out.push([at, at + FRAME_HEADER_LEN + len]);
    at += FRAME_HEADER_LEN + len;
  }
  assert.equal(at, log.length, 'the log ends on a frame boundary');
  return out;
}

/**
 * A reference server's memory.jsonl with duplicates (names, observations, relations), lone
 * surrogates and no newline at the end — the same as host-native/tests/stdio.rs.
 */
export const REFERENCE_JSONL = [
  '{"type":"entity","name":"Alice","entityType":"person","observations":["likes tea","likes tea"]}\n',
  '{"type":"entity","name":"Bob","entityType":"person","observations":["first"]}\n',
  '{"type":"entity","name":"Bob","entityType":"duplicate","observations":["second"]}\n',
  '{"type":"entity","name":"lone \\ud800","entityType":"t","observations":["\\udfff","pair \\ud83d\\ude00"]}\n',
  '{"type":"relation","from":"Alice","to":"Bob","relationType":"knows"}\n',
  '{"type":"relation","from":"Alice","to":"Bob","relationType":"knows"}\n',
  '{"type":"relation","from":"Ghost","to":"Alice","relationType":"haunts"}',
].join('');

/** The graph REFERENCE_JSONL holds. */
export function referenceGraph() {
  return {
    entities: [
      entity('Alice', 'person', ['likes tea', 'likes tea']),
      entity('Bob', 'person', ['first']),
      entity('Bob', 'duplicate', ['second']),
      entity('lone \ufffd', 't', ['\ufffd', 'pair 😀']),
    ],
    relations: [
      relation('Alice', 'Bob', 'knows'),
      relation('Alice', 'Bob', 'knows'),
      relation('Ghost', 'Alice', 'haunts'),
    ],
  };
}

/**
 * The tool calls (`[tool, args]`) that produced host-native/tests/fixtures/
 * reference-written.jsonl when sent to the reference server.
 */
export function exportSession() {
  return JSON.parse(fs.readFileSync(path.join(NATIVE_FIXTURES, 'export-session.json'), 'utf8'));
}

/** The bytes the reference server wrote after exportSession(). */
export function referenceWritten() {
  return fs.readFileSync(path.join(NATIVE_FIXTURES, 'reference-written.jsonl'));
}

/**
 * Two sessions that leave a record of every kind in a memory: creates, observations added
 * and deleted, relations deleted, entities deleted (with their relations), then more.
 */
export const EVERY_RECORD_SESSIONS = [
  [
    [
      'create_entities',
      {
        entities: [
          entity('Alice', 'person', ['o1', 'o1', 'quote " \n é 😀']),
          entity('Bob', 'person', []),
          entity('Carol', 'person', ['c']),
        ],
      },
    ],
    [
      'create_relations',
      {
        relations: [
          relation('Alice', 'Bob', 'knows'),
          relation('Bob', 'Ghost', 'fears'),
          relation('Carol', 'Alice', 'mentors'),
        ],
      },
    ],
    ['add_observations', { observations: [{ entityName: 'Bob', contents: ['b1', 'b2'] }] }],
  ],
  [
    ['delete_observations', { deletions: [{ entityName: 'Alice', observations: ['o1'] }] }],
    ['delete_relations', { relations: [relation('Bob', 'Ghost', 'fears')] }],
    ['delete_entities', { entityNames: ['Carol'] }],
    ['create_entities', { entities: [entity('Dave', 'person', ['d'])] }],
    ['add_observations', { observations: [{ entityName: 'Dave', contents: ['d2'] }] }],
    ['create_relations', { relations: [relation('Dave', 'Alice', 'likes')] }],
  ],
];

/** The graph after both EVERY_RECORD_SESSIONS. */
export function everyRecordGraph() {
  return {
    entities: [
      entity('Alice', 'person', ['quote " \n é 😀']),
      entity('Bob', 'person', ['b1', 'b2']),
      entity('Dave', 'person', ['d', 'd2']),
    ],
    relations: [relation('Alice', 'Bob', 'knows'), relation('Dave', 'Alice', 'likes')],
  };
}

/** The reference server's nine tools, in its order: mcp-memory lists them first. */
export const REFERENCE_TOOLS = [
  'create_entities',
  'create_relations',
  'add_observations',
  'delete_entities',
  'delete_observations',
  'delete_relations',
  'read_graph',
  'search_nodes',
  'open_nodes',
];

/** Asserts a tools/list result: the reference's nine first, then mcp-memory's own (search among them). */
export function assertCatalog(tools) {
  const names = tools.map((t) => (typeof t === 'string' ? t : t.name));
  assert.deepEqual(names.slice(0, 9), REFERENCE_TOOLS);
  for (const own of ['upsert_entities', 'merge_entities', 'find_path', 'search']) assert.ok(names.includes(own), `${own} is listed`);
}
