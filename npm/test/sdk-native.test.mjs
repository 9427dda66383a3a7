// The official MCP TypeScript SDK's client against the native server's network and stdio
// transports: every listed tool called over Streamable HTTP and over stdio (one case table,
// so a new tool without a case fails), the knowledge-graph resource read and its update
// notification delivered on the GET SSE stream when another session changes the graph; and
// the HTTP endpoint's refusals (bearer token 401, Origin 403, session 400/404, protocol
// version 400), checked with plain fetch.
//
// The native binary is $MCP_MEMORY_NATIVE, else ../target/release/mcp-memory (from npm/);
// without one the file is skipped. Build it with: cargo build --release -p mcp-memory-server.

import test from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

import { KILL_AFTER_MS, NPM_DIR, call, childEnv, entity, initialize, relation, tempDir } from './helpers.mjs';

const NATIVE = process.env.MCP_MEMORY_NATIVE
  ? path.resolve(process.env.MCP_MEMORY_NATIVE)
  : path.resolve(NPM_DIR, '..', 'target', 'release', 'mcp-memory');
/** Every test of this file is skipped, with this reason, when there is no native binary. */
const NEEDS_NATIVE = {
  skip:
    !fs.existsSync(NATIVE) &&
    `no native binary at ${NATIVE}: build it with \`cargo build --release -p mcp-memory-server\`, or set MCP_MEMORY_NATIVE`,
};

const TOKEN = 'sdk-native-test-token';
const GRAPH_URI = 'memory://knowledge-graph';
/** How long a notification may take to arrive (a hang guard, not a timing check). */
const NOTICE_MS = 10_000;

// ---------------------------------------------------------------------------------------
// The native server over HTTP

/**
 * Starts `mcp-memory -f <dir>/memory.mcpmem --transport http --bind 127.0.0.1:0 ...args` in
 * a new temp dir; resolves once it printed its URL. `t.after` kills it and awaits its exit.
 */
async function httpServer(t, { args = [], env = {}, tokenFile = true } = {}) {
  const dir = tempDir('mcp-memory-sdk-');
  const file = path.join(dir, 'memory.mcpmem');
  const extra = [...args];
  if (tokenFile) {
    fs.writeFileSync(path.join(dir, 'token'), `${TOKEN}\n`, { mode: 0o600 });
    extra.push('--auth-token-file', path.join(dir, 'token'));
  }
  const child = spawn(NATIVE, ['-f', file, '--transport', 'http', '--bind', '127.0.0.1:0', ...extra], {
    env: childEnv({ MCP_MEMORY_AUTH_TOKEN: undefined, ...env }),
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: KILL_AFTER_MS,
  });
  let stderr = '';
  const exited = new Promise((resolve) => child.on('close', (status, signal) => resolve({ status, signal })));
  t.after(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill();
    await exited;
  });
  const url = await new Promise((resolve, reject) => {
    child.stderr.on('data', (c) => {
      stderr += c;
      const m = /serving .* on (http:\/\/\S+\/mcp)\s*$/m.exec(stderr);
      if (m) resolve(new URL(m[1]));
    });
    child.on('error', reject);
    exited.then(({ status, signal }) => reject(new Error(`the server exited (${status ?? signal}) before serving; stderr:\n${stderr}`)));
  });
  return { url, file, dir, stderr: () => stderr };
}

/** A connected SDK client over Streamable HTTP (`token` null: no Authorization header). */
async function httpClient(url, token = TOKEN) {
  const headers = token === null ? {} : { Authorization: `Bearer ${token}` };
  const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers } });
  const client = new Client({ name: 'sdk-native-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport };
}

/** Ends a client's HTTP session (DELETE) and closes it. */
async function endSession({ client, transport }) {
  await transport.terminateSession();
  assert.equal(transport.sessionId, undefined, 'the session id is forgotten once terminated');
  await client.close();
}

/** Rejects after `ms` unless `promise` settled first. */
function within(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

// ---------------------------------------------------------------------------------------
// Every tool

/**
 * The graph every tool's case runs on. Destructive cases have entities of their own
 * (Doomed, Src/Dst, the `dislikes` and `mentors` relations, Alice's `obsolete` observation), so the
 * cases pass in any order: the order tools/list gives.
 */
const SETUP = {
  entities: [
    entity('Alice', 'person', ['likes tea', 'obsolete']),
    entity('Bob', 'person', ['plays chess']),
    entity('Acme', 'company', ['makes tea']),
    entity('Doomed', 'thing', ['to be deleted']),
    entity('Src', 'person', ['a duplicate']),
    entity('Dst', 'person', ['the original']),
  ],
  relations: [
    relation('Alice', 'Bob', 'knows'),
    relation('Bob', 'Acme', 'works_at'),
    relation('Alice', 'Bob', 'dislikes'),
    relation('Src', 'Acme', 'works_at'),
    relation('Alice', 'Created', 'made'),
    relation('Mentor', 'Pupil', 'mentors'),
  ],
};

/**
 * A relation's id as the Python seed's tools show it (core/src/tools/mcp_memory_py/mod.rs): the FNV-1a
 * hash of its from, type and to (separated by a 0xff byte), cut to 53 bits.
 */
function relationId(from, relationType, to) {
  const bytes = [from, relationType, to].flatMap((part, i) => [...(i ? [0xff] : []), ...new TextEncoder().encode(part)]);
  let h = 0xcbf29ce484222325n;
  for (const b of bytes) h = ((h ^ BigInt(b)) * 0x100000001b3n) & 0xffffffffffffffffn;
  return Number(h & ((1n << 53n) - 1n));
}

/** The reference file migrate's case imports. */
const MIGRATE_FILE = path.join(tempDir(), 'migrate', 'memory.jsonl');

/**
 * Each tool's arguments, and optionally a check of its structuredContent. A tool the
 * server lists without a case here fails the test (and so does a case for a tool it
 * no longer lists).
 */
const CASES = {
  create_entities: {
    args: { entities: [entity('Created', 'thing', ['new'])] },
    check: (r) => assert.deepEqual(r.entities, [entity('Created', 'thing', ['new'])]),
  },
  create_relations: {
    args: { relations: [relation('Alice', 'Acme', 'visits')] },
    check: (r) => assert.deepEqual(r.relations, [relation('Alice', 'Acme', 'visits')]),
  },
  add_observations: {
    args: { observations: [{ entityName: 'Bob', contents: ['plays go'] }] },
    check: (r) => assert.deepEqual(r.results, [{ entityName: 'Bob', addedObservations: ['plays go'] }]),
  },
  delete_entities: { args: { entityNames: ['Doomed'] } },
  delete_observations: { args: { deletions: [{ entityName: 'Alice', observations: ['obsolete'] }] } },
  delete_relations: { args: { relations: [relation('Alice', 'Bob', 'dislikes')] } },
  read_graph: { args: {}, check: (r) => assert.ok(r.entities.some((e) => e.name === 'Alice')) },
  search_nodes: { args: { query: 'tea' }, check: (r) => assert.ok(r.entities.some((e) => e.name === 'Acme')) },
  open_nodes: {
    // With the metadata and history: the client validates them against the outputSchema.
    args: { names: ['Alice', 'Bob'], include: ['metadata', 'history'] },
    check: (r) => {
      assert.deepEqual(r.entities.map((e) => e.name), ['Alice', 'Bob']);
      assert.ok(r.relations.some((x) => x.relationType === 'knows'));
      assert.equal(r.entities[0].status, 'active');
      assert.equal(r.entities[0].facts[0].kind, 'generic');
    },
  },
  upsert_entities: {
    args: { entities: [entity('Upserted', 'thing', ['u']), entity('Bob', 'person', ['upserted fact'])] },
    check: (r) => assert.deepEqual(r.results.map((x) => [x.name, x.created]), [['Upserted', true], ['Bob', false]]),
  },
  merge_entities: { args: { source: 'Src', target: 'Dst' }, check: (r) => assert.deepEqual([r.source, r.target], ['Src', 'Dst']) },
  compact: { args: {}, check: (r) => assert.equal(typeof r.records, 'number') },
  get_entity: { args: { name: 'Alice' }, check: (r) => assert.equal(r.entity.name, 'Alice') },
  batch_get_entities: {
    args: { names: ['Alice', 'Acme'] },
    check: (r) => assert.deepEqual(r.entities.map((e) => e.name), ['Alice', 'Acme']),
  },
  entity_exists: { args: { name: 'Bob' }, check: (r) => assert.equal(r.exists, true) },
  graph_stats: { args: {}, check: (r) => assert.ok(r.entityCount >= 3 && r.relationCount >= 2, JSON.stringify(r)) },
  search_relations: {
    args: { from: 'Bob' },
    check: (r) => assert.ok(r.relations.some((x) => x.to === 'Acme' && x.relationType === 'works_at')),
  },
  describe_entity: { args: { name: 'Bob' }, check: (r) => assert.ok(r.entity.name === 'Bob' && r.neighbors.includes('Acme')) },
  degree: { args: { name: 'Bob', direction: 'both' }, check: (r) => assert.ok(r.name === 'Bob' && r.degree >= 2, JSON.stringify(r)) },
  find_path: {
    args: { from: 'Alice', to: 'Acme' },
    check: (r) => assert.ok(r.found && r.path[0] === 'Alice' && r.path.at(-1) === 'Acme', JSON.stringify(r)),
  },
  find_all_paths: {
    args: { from: 'Alice', to: 'Acme', maxDepth: 3 },
    check: (r) => assert.ok(r.paths.some((p) => p.path.join() === 'Alice,Bob,Acme'), JSON.stringify(r)),
  },
  extract_subgraph: {
    args: { names: ['Bob'], depth: 1 },
    check: (r) => assert.deepEqual(r.entities.map((e) => e.name).sort(), ['Acme', 'Alice', 'Bob']),
  },
  get_neighbors: {
    args: { name: 'Bob', direction: 'out' },
    check: (r) => assert.deepEqual(r.neighbors.map((n) => n.name), ['Acme']),
  },
  list_entity_types: { args: {}, check: (r) => assert.ok(r.types.some((x) => x.type === 'company')) },
  list_relation_types: { args: {}, check: (r) => assert.ok(r.types.some((x) => x.type === 'works_at')) },
  export_graph: {
    args: { format: 'mermaid' },
    check: (r) => assert.ok(r.format === 'mermaid' && r.output.includes('"works_at"'), JSON.stringify(r)),
  },
  search: { args: { query: 'tea', limit: 5 }, check: (r) => assert.ok(r.hits.some((h) => h.name === 'Acme'), JSON.stringify(r)) },
  update_entities: {
    args: { entities: [{ name: 'Acme', tags: ['Client'], importance: 8, status: 'active' }] },
    check: (r) => assert.deepEqual(r.updated, [{ name: 'Acme', tags: ['client'], importance: 8, status: 'active' }]),
  },
  end_relations: {
    args: { relations: [relation('Alice', 'Created', 'made')] },
    check: (r) => assert.deepEqual(r.ended, [relation('Alice', 'Created', 'made')]),
  },
  end_relation: {
    args: { relation_id: relationId('Mentor', 'mentors', 'Pupil') },
    check: (r) => assert.ok(r.relation.from === 'Mentor' && r.relation.active === false, JSON.stringify(r)),
  },
  search_semantic: {
    args: { query: 'a drink made from leaves', limit: 3 },
    check: (r) => assert.ok(r.results.length <= 3 && r.results.every((h) => typeof h.limbic_score === 'number'), JSON.stringify(r)),
  },
  search_reflections: {
    args: { query: 'work together' },
    // add_reflection may not have run yet: the answer is then empty, but well formed.
    check: (r) => assert.ok(Array.isArray(r.reflections) && r.total === r.reflections.length, JSON.stringify(r)),
  },
  forget: {
    args: { entityNames: ['Upserted'] },
    check: (r) => assert.ok(r.forgotten[0] === 'Upserted' && typeof r.gone === 'boolean', JSON.stringify(r)),
  },
  add_reflection: {
    args: { content: 'Alice and Bob work together', entity: 'Alice', mood: 'curious' },
    check: (r) => assert.ok(r.reflection.id >= 1 && r.reflection.author.length > 0, JSON.stringify(r)),
  },
  history: {
    // forget (listed before) compacted the history away: make a change to look at.
    setup: (client) => client.callTool({ name: 'update_entities', arguments: { entities: [{ name: 'Acme', importance: 5 }] } }),
    args: { entityName: 'Acme' },
    // Remembers that change for undo (listed after history).
    check: (r) => {
      patchOfAcme = r.changes.find((c) => c.ops.some((op) => op.op === 'patch_entities'))?.id;
      assert.ok(patchOfAcme, JSON.stringify(r));
    },
  },
  undo: {
    get args() {
      return { changeId: patchOfAcme };
    },
    check: (r) => assert.equal(r.undone, patchOfAcme),
  },
  // The TypeScript Memory MCP's saved searches (listed before its tag tools).
  save_search: { args: { name: 'people', query: 'Alice' }, check: (r) => assert.deepEqual([r.name, r.useCount], ['people', 0]) },
  execute_saved_search: { args: { name: 'people' }, check: (r) => assert.ok(r.entities.some((e) => e.name === 'Alice'), JSON.stringify(r)) },
  list_saved_searches: { args: {}, check: (r) => assert.deepEqual(r.searches.map((q) => [q.name, q.useCount]), [['people', 1]]) },
  // Not found is an answer, not an error (as the seed answers); update runs after it.
  delete_saved_search: { args: { name: 'nothing' }, check: (r) => assert.equal(r.deleted, false) },
  update_saved_search: { args: { name: 'people', updates: { description: 'who' } }, check: (r) => assert.equal(r.description, 'who') },
  // The TypeScript Memory MCP's tag and importance tools, in its shapes.
  add_tags: { args: { entityName: 'Alice', tags: ['Friend', 'tea'] }, check: (r) => assert.deepEqual(r.addedTags, ['friend', 'tea']) },
  remove_tags: { args: { entityName: 'Alice', tags: ['tea'] }, check: (r) => assert.deepEqual(r.removedTags, ['tea']) },
  set_importance: { args: { entityName: 'Bob', importance: 7 }, check: (r) => assert.equal(r.importance, 7) },
  // Its answer is an array: the text; structuredContent holds it as `results`.
  add_tags_to_multiple_entities: {
    args: { entityNames: ['Alice', 'Bob'], tags: ['team'] },
    check: (r) => assert.deepEqual(r.results.map((x) => x.entityName), ['Alice', 'Bob']),
  },
  replace_tag: { args: { oldTag: 'team', newTag: 'crew' }, check: (r) => assert.equal(r.count, 2) },
  merge_tags: {
    args: { tag1: 'friend', tag2: 'crew', targetTag: 'circle' },
    check: (r) => assert.deepEqual(r.affectedEntities, ['Alice', 'Bob']),
  },
  // Its tag aliases (merge_tags, listed before, made the tag circle).
  add_tag_alias: { args: { alias: 'Pal', canonical: 'circle' }, check: (r) => assert.deepEqual([r.alias, r.canonical], ['pal', 'circle']) },
  list_tag_aliases: { args: {}, check: (r) => assert.deepEqual(r.aliases.map((a) => a.alias), ['pal']) },
  remove_tag_alias: { args: { alias: 'nothing' }, check: (r) => assert.equal(r.removed, false) },
  get_aliases_for_tag: { args: { canonicalTag: 'circle' }, check: (r) => assert.deepEqual(r.aliases, ['pal']) },
  resolve_tag: { args: { tag: 'PAL' }, check: (r) => assert.deepEqual(r, { tag: 'PAL', resolved: 'circle' }) },
  // Its hierarchy tools: Bob goes under Acme, the reads walk that tree, then Bob moves out.
  set_entity_parent: { args: { entityName: 'Bob', parentName: 'Acme' }, check: (r) => assert.equal(r.parentId, 'Acme') },
  get_children: { args: { entityName: 'Acme' }, check: (r) => assert.deepEqual(r.entities.map((e) => e.name), ['Bob']) },
  get_parent: { args: { entityName: 'Bob' }, check: (r) => assert.equal(r.parent.name, 'Acme') },
  get_ancestors: { args: { entityName: 'Bob' }, check: (r) => assert.deepEqual(r.entities.map((e) => e.name), ['Acme']) },
  get_descendants: { args: { entityName: 'Acme' }, check: (r) => assert.deepEqual(r.entities.map((e) => e.name), ['Bob']) },
  get_subtree: {
    args: { entityName: 'Acme' },
    check: (r) => {
      assert.deepEqual(r.entities.map((e) => e.name), ['Acme', 'Bob']);
      assert.ok(r.relations.some((x) => x.from === 'Bob' && x.to === 'Acme'), JSON.stringify(r));
    },
  },
  get_root_entities: {
    args: {},
    check: (r) => assert.ok(r.entities.some((e) => e.name === 'Acme') && !r.entities.some((e) => e.name === 'Bob')),
  },
  get_entity_depth: { args: { entityName: 'Bob' }, check: (r) => assert.deepEqual(r, { entityName: 'Bob', depth: 1 }) },
  move_entity: { args: { entityName: 'Bob', newParentName: null }, check: (r) => assert.equal(r.parentId, undefined) },
  // Its analytics.
  get_graph_stats: { args: {}, check: (r) => assert.ok(r.totalEntities >= 3 && r.entityTypesCounts.person >= 2, JSON.stringify(r)) },
  find_shortest_path: {
    args: { source: 'Alice', target: 'Acme' },
    check: (r) => assert.deepEqual([r.path[0], r.path.at(-1)], ['Alice', 'Acme']),
  },
  get_connected_components: { args: {}, check: (r) => assert.ok(r.components[0].includes('Bob') && r.count >= 1, JSON.stringify(r)) },
  get_centrality: {
    args: { algorithm: 'pagerank', topN: 2 },
    check: (r) => assert.ok(r.algorithm === 'pagerank' && r.topEntities.length === 2, JSON.stringify(r)),
  },
  // Its date search and hygiene reads.
  search_by_date_range: { args: { startDate: '2000-01-01' }, check: (r) => assert.ok(r.total >= 3 && r.entities.length === r.total, JSON.stringify(r)) },
  validate_graph: { args: {}, check: (r) => assert.equal(typeof r.isValid, 'boolean') },
  find_duplicates: { args: {}, check: (r) => assert.ok(Array.isArray(r.groups), JSON.stringify(r)) },
  compress_graph: { args: { dryRun: true }, check: (r) => assert.ok(Array.isArray(r.mergedEntities), JSON.stringify(r)) },
  // Its archive: Bob (importance 7) leaves and comes back with his relations.
  archive_entities: { args: { importanceLessThan: 8 }, check: (r) => assert.deepEqual(r.entityNames, ['Bob']) },
  list_archived: { args: {}, check: (r) => assert.deepEqual(r.archived.map((x) => x.name), ['Bob']) },
  restore_archived: { args: { entityNames: ['Bob'] }, check: (r) => assert.equal(r.restored, 1) },
  // Its search family.
  search_nodes_ranked: { args: { query: 'Acme' }, check: (r) => assert.ok(r.results.some((h) => h.entity.name === 'Acme'), JSON.stringify(r)) },
  boolean_search: { args: { query: 'acme OR alice' }, check: (r) => assert.ok(r.entities.some((e) => e.name === 'Alice'), JSON.stringify(r)) },
  fuzzy_search: { args: { query: 'Alise' }, check: (r) => assert.ok(r.entities.some((e) => e.name === 'Alice'), JSON.stringify(r)) },
  get_search_suggestions: { args: { query: 'Alic' }, check: (r) => assert.ok(r.suggestions.includes('Alice'), JSON.stringify(r)) },
  semantic_search: { args: { query: 'a person', limit: 3 }, check: (r) => assert.ok(r.count <= 3 && r.results.length === r.count, JSON.stringify(r)) },
  find_similar_entities: { args: { entityName: 'Alice', limit: 2 }, check: (r) => assert.ok(r.similarEntities.every((x) => x.entity.name !== 'Alice'), JSON.stringify(r)) },
  index_embeddings: { args: {}, check: (r) => assert.ok(r.totalEntities >= 3 && r.stats.dimensions > 0, JSON.stringify(r)) },
  hybrid_search: { args: { query: 'Acme' }, check: (r) => assert.equal(r.resultCount, r.results.length) },
  search_auto: { args: { query: 'Acme' }, check: (r) => assert.equal(r.estimates.length, 5) },
  analyze_query: { args: { query: 'Who works at Acme?' }, check: (r) => assert.equal(r.analysis.questionType, 'factual') },
  smart_search: { args: { query: 'Acme' }, check: (r) => assert.ok(r.reflection.iterations >= 1, JSON.stringify(r)) },
  normalize_observations: { args: {}, check: (r) => assert.equal(r.persisted, false) },
  // Its import.
  import_graph: {
    args: {
      format: 'csv',
      data: '# ENTITIES\nname,entityType,observations\nImported,thing,from csv\n\n# RELATIONS\nfrom,to,relationType\nImported,Acme,mentions',
    },
    check: (r) => assert.ok(r.entitiesAdded === 1 && r.relationsAdded === 1 && r.errors.length === 0, JSON.stringify(r)),
  },
  // The Python MCP Memory v2's hygiene tools (Alice is far within her type's threshold).
  find_split_candidates: {
    args: { limit: 5 },
    check: (r) => assert.ok(Array.isArray(r.candidates) && r.total >= r.candidates.length, JSON.stringify(r)),
  },
  analyze_entity_split: {
    args: { entity_name: 'Alice' },
    check: (r) => assert.ok(r.analysis.entity_name === 'Alice' && r.analysis.needs_split === false, JSON.stringify(r)),
  },
  propose_entity_split_tool: { args: { entity_name: 'Alice' }, check: (r) => assert.equal(r.proposal, null) },
  // Diary, made for it, gives one observation to a new entity, Diary - Tea.
  execute_entity_split_tool: {
    setup: (client) =>
      client.callTool({ name: 'create_entities', arguments: { entities: [entity('Diary', 'thing', ['tea at noon', 'chess at night'])] } }),
    args: { entity_name: 'Diary', approved_splits: [{ name: 'Diary - Tea', observations: ['tea at noon'] }] },
    check: (r) =>
      assert.deepEqual(r.result, {
        new_entities: ['Diary - Tea'],
        moved_observations: 1,
        relations_created: 2,
        original_observations_remaining: 1,
        parent: 'Diary',
      }),
  },
  find_duplicate_observations: {
    args: { entity_name: 'Alice' },
    check: (r) => assert.ok(r.entity === 'Alice' && Array.isArray(r.clusters), JSON.stringify(r)),
  },
  consolidation_report: {
    args: { stale_days: 30, limit: 5 },
    check: (r) => assert.ok(r.summary.total_entities >= 3 && r.large_entities.length <= 5, JSON.stringify(r)),
  },
  // A reference memory.jsonl of its own, by absolute path: Rosalind is new (skipped if this
  // memory already migrated it).
  migrate: {
    setup: () => {
      fs.mkdirSync(path.dirname(MIGRATE_FILE), { recursive: true });
      fs.writeFileSync(MIGRATE_FILE, `${JSON.stringify({ type: 'entity', ...entity('Rosalind', 'person', ['x-ray']) })}\n`);
    },
    args: { source_path: MIGRATE_FILE },
    check: (r) =>
      assert.ok(r.entities_imported + r.skipped === 1 && r.errors === 0 && r.relations_imported === 0, JSON.stringify(r)),
  },
};

/** The id of history's setup change, as history lists it (undo's case undoes it). */
let patchOfAcme;

const TOOL_COUNT = 92;

/**
 * Lists the tools (all 92, each with a case), builds SETUP, then calls every listed tool
 * with its case's arguments: none may fail, and a tool that declares an outputSchema must
 * return structuredContent (the SDK client validates it against that schema). Then the graph
 * must show every write.
 */
async function callEveryTool(client) {
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  assert.equal(new Set(names).size, names.length, `tools/list names a tool twice: ${names}`);
  assert.equal(tools.length, TOOL_COUNT, `tools/list: ${names.join(', ')}`);
  const untested = names.filter((n) => !(n in CASES));
  assert.deepEqual(untested, [], `listed tools without a case in CASES: ${untested.join(', ')}`);
  const unlisted = Object.keys(CASES).filter((n) => !names.includes(n));
  assert.deepEqual(unlisted, [], `cases for tools the server does not list: ${unlisted.join(', ')}`);

  for (const [name, args] of [
    ['create_entities', { entities: SETUP.entities }],
    ['create_relations', { relations: SETUP.relations }],
  ]) {
    const result = await client.callTool({ name, arguments: args });
    assert.ok(!result.isError, `setup ${name}: ${JSON.stringify(result)}`);
  }

  for (const tool of tools) {
    const { args, check, setup } = CASES[tool.name];
    await setup?.(client);
    const result = await client.callTool({ name: tool.name, arguments: args });
    assert.ok(!result.isError, `${tool.name}: ${JSON.stringify(result)}`);
    assert.ok(Array.isArray(result.content), `${tool.name} returned no content array`);
    if (tool.outputSchema) {
      assert.equal(typeof result.structuredContent, 'object', `${tool.name} declares an outputSchema but returned no structuredContent`);
      assert.notEqual(result.structuredContent, null);
    }
    try {
      check?.(result.structuredContent);
    } catch (e) {
      e.message = `${tool.name}: ${e.message}`;
      throw e;
    }
  }

  // Every write took effect, whatever the order of the calls.
  const { structuredContent: graph } = await client.callTool({ name: 'read_graph', arguments: {} });
  const byName = Object.fromEntries(graph.entities.map((e) => [e.name, e]));
  assert.deepEqual(Object.keys(byName).sort(), ['Acme', 'Alice', 'Bob', 'Created', 'Diary', 'Diary - Tea', 'Dst', 'Imported', 'Rosalind']);
  assert.deepEqual(byName.Alice.observations, ['likes tea']);
  assert.deepEqual(byName.Bob.observations.toSorted(), ['plays chess', 'plays go', 'upserted fact']);
  assert.deepEqual(byName.Dst.observations, ['the original', 'a duplicate']);
  assert.deepEqual([byName.Diary.observations, byName['Diary - Tea'].observations], [['chess at night'], ['tea at noon']]);
  assert.deepEqual(graph.relations.map((r) => `${r.from} ${r.relationType} ${r.to}`).sort(), [
    'Alice knows Bob',
    'Alice visits Acme',
    'Bob works_at Acme',
    'Diary - Tea parte_de Diary',
    'Diary contiene Diary - Tea',
    'Dst works_at Acme',
    'Imported mentions Acme',
  ]);
}

// ---------------------------------------------------------------------------------------
// Raw HTTP

/** Headers of a well-formed POST, then `headers` (a value of undefined removes one). */
function postHeaders(headers = {}) {
  const out = {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    Authorization: `Bearer ${TOKEN}`,
  };
  for (const [k, v] of Object.entries(headers)) {
    if (v === undefined) delete out[k];
    else out[k] = v;
  }
  return out;
}

/** POSTs one JSON-RPC message to `url`. */
function post(url, message, headers = {}) {
  return fetch(url, { method: 'POST', headers: postHeaders(headers), body: JSON.stringify(message) });
}

/** A new session (initialize, then notifications/initialized); resolves with its id. */
async function rawSession(url, headers = {}) {
  const res = await post(url, initialize(1), headers);
  assert.equal(res.status, 200, await res.clone().text());
  const id = res.headers.get('mcp-session-id');
  assert.match(id ?? '', /^\S+$/, 'initialize returns an Mcp-Session-Id');
  await res.text();
  const ack = await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, { 'Mcp-Session-Id': id, ...headers });
  assert.equal(ack.status, 202);
  await ack.text();
  return id;
}

/** Asserts a refusal: this status, a JSON-RPC error body. Resolves with the response. */
async function assertRefused(res, status, what) {
  const body = await res.text();
  assert.equal(res.status, status, `${what}: got ${res.status} ${body}`);
  const parsed = JSON.parse(body);
  assert.equal(parsed.jsonrpc, '2.0', `${what}: ${body}`);
  assert.ok(parsed.error, `${what}: ${body}`);
  return res;
}

/** The whole graph, read through the SDK with the right token. */
async function graphOver(url) {
  const session = await httpClient(url);
  const { structuredContent } = await session.client.callTool({ name: 'read_graph', arguments: {} });
  await endSession(session);
  return structuredContent;
}

// ---------------------------------------------------------------------------------------
// Tests

test('SDK over Streamable HTTP with a token file: every tool, the graph resource, and updates from another session on the GET stream', NEEDS_NATIVE, async (t) => {
  const server = await httpServer(t);
  const a = await httpClient(server.url);
  assert.equal(a.client.getServerVersion().name, 'mcp-memory');
  assert.match(a.transport.sessionId ?? '', /^\S+$/, 'the SDK holds a session id');
  assert.ok(a.client.getServerCapabilities().resources?.subscribe, 'the server offers resource subscriptions');

  await callEveryTool(a.client);

  const { resources } = await a.client.listResources();
  assert.ok(resources.some((r) => r.uri === GRAPH_URI), `resources/list: ${JSON.stringify(resources)}`);
  const read = await a.client.readResource({ uri: GRAPH_URI });
  assert.equal(read.contents.length, 1);
  assert.equal(read.contents[0].uri, GRAPH_URI);
  const { structuredContent: graph } = await a.client.callTool({ name: 'read_graph', arguments: {} });
  assert.deepEqual(JSON.parse(read.contents[0].text), graph, 'the resource is the graph read_graph returns');

  const updates = [];
  let updated;
  const nextUpdate = () => new Promise((resolve) => (updated = resolve));
  a.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    updates.push(n.params.uri);
    updated?.(n);
  });
  await a.client.subscribeResource({ uri: GRAPH_URI });
  const arrived = nextUpdate();

  const b = await httpClient(server.url);
  assert.notEqual(b.transport.sessionId, a.transport.sessionId, 'the second client has a session of its own');
  const made = await b.client.callTool({ name: 'create_entities', arguments: { entities: [entity('FromB', 'thing', ['b'])] } });
  assert.ok(!made.isError, JSON.stringify(made));
  const notice = await within(arrived, NOTICE_MS, 'notifications/resources/updated to the subscribed session');
  assert.deepEqual(notice.params, { uri: GRAPH_URI });
  const after = await a.client.readResource({ uri: GRAPH_URI });
  assert.ok(JSON.parse(after.contents[0].text).entities.some((e) => e.name === 'FromB'), 'the subscriber reads the other session\'s change');

  // The subscriber's own change: the update precedes the reply in the POST's SSE response.
  const own = nextUpdate();
  const added = await a.client.callTool({ name: 'add_observations', arguments: { observations: [{ entityName: 'FromB', contents: ['seen by A'] }] } });
  assert.ok(!added.isError, JSON.stringify(added));
  await within(own, NOTICE_MS, 'notifications/resources/updated for the subscriber\'s own change');
  assert.equal(updates.length, 2, `updates: ${updates}`);

  // Unsubscribed: another session's change is not reported.
  await a.client.unsubscribeResource({ uri: GRAPH_URI });
  const quiet = await b.client.callTool({ name: 'delete_entities', arguments: { entityNames: ['FromB'] } });
  assert.ok(!quiet.isError, JSON.stringify(quiet));
  await new Promise((resolve) => setTimeout(resolve, 300));
  assert.equal(updates.length, 2, `no update after unsubscribing; updates: ${updates}`);

  await endSession(b);
  const sessionId = a.transport.sessionId;
  await endSession(a);
  await assertRefused(await post(server.url, call(9, 'read_graph', {}), { 'Mcp-Session-Id': sessionId }), 404, 'a terminated SDK session');
});

test('SDK over stdio (the native binary spawned with -f FILE): every tool', NEEDS_NATIVE, async () => {
  const dir = tempDir('mcp-memory-sdk-');
  const file = path.join(dir, 'memory.mcpmem');
  const transport = new StdioClientTransport({ command: NATIVE, args: ['-f', file], env: childEnv(), stderr: 'pipe' });
  let stderr = '';
  transport.stderr.on('data', (c) => (stderr += c));
  const client = new Client({ name: 'sdk-native-test', version: '1.0.0' });
  try {
    await client.connect(transport);
    assert.equal(client.getServerVersion().name, 'mcp-memory');
    await callEveryTool(client);
    const read = await client.readResource({ uri: GRAPH_URI });
    assert.ok(JSON.parse(read.contents[0].text).entities.some((e) => e.name === 'Created'));
  } catch (e) {
    e.message += `\nserver stderr:\n${stderr}`;
    throw e;
  } finally {
    await client.close();
  }
  assert.ok(fs.statSync(file).size > 0, 'the memory file was written');
});

test('HTTP without the right bearer token: 401 with WWW-Authenticate: Bearer, and nothing changes', NEEDS_NATIVE, async (t) => {
  const server = await httpServer(t);
  const before = { entities: [entity('Kept', 'thing', ['k'])], relations: [] };
  {
    const s = await httpClient(server.url);
    const made = await s.client.callTool({ name: 'create_entities', arguments: { entities: before.entities } });
    assert.ok(!made.isError);
    await endSession(s);
  }
  const session = await rawSession(server.url);
  const create = call(2, 'create_entities', { entities: [entity('Intruder', 'thing', ['x'])] });
  const wrong = {
    'no Authorization': undefined,
    'a wrong token': `Bearer not-${TOKEN}`,
    'the token as Basic': `Basic ${TOKEN}`,
    'Basic credentials holding the token': `Basic ${Buffer.from(`user:${TOKEN}`).toString('base64')}`,
    'the token without a scheme': TOKEN,
    'an empty Bearer': 'Bearer ',
  };
  for (const [what, authorization] of Object.entries(wrong)) {
    for (const [kind, message, headers] of [
      ['initialize', initialize(1), {}],
      ['tools/call create_entities in a live session', create, { 'Mcp-Session-Id': session }],
    ]) {
      const res = await post(server.url, message, { Authorization: authorization, ...headers });
      await assertRefused(res, 401, `${kind} with ${what}`);
      assert.equal(res.headers.get('www-authenticate'), 'Bearer', `${kind} with ${what}: WWW-Authenticate`);
      assert.equal(res.headers.get('mcp-session-id'), null, `${kind} with ${what} opens no session`);
    }
  }
  const ok = await post(server.url, call(3, 'entity_exists', { name: 'Kept' }), { 'Mcp-Session-Id': session });
  assert.equal(ok.status, 200, 'the session still works with the right token');
  await ok.text();
  assert.deepEqual(await graphOver(server.url), before, 'the graph is unchanged');

  for (const token of [`not-${TOKEN}`, null]) {
    const transport = new StreamableHTTPClientTransport(server.url, {
      requestInit: { headers: token === null ? {} : { Authorization: `Bearer ${token}` } },
    });
    const client = new Client({ name: 'sdk-native-test', version: '1.0.0' });
    await assert.rejects(client.connect(transport), /401|Unauthorized/, `the SDK client with ${token ?? 'no token'} fails to connect`);
    await client.close();
  }
});

test('HTTP Origin, session and protocol-version checks: 403, 400, 404 (token from MCP_MEMORY_AUTH_TOKEN)', NEEDS_NATIVE, async (t) => {
  const allowed = 'http://allowed.example:8080';
  const server = await httpServer(t, { args: ['--allow-origin', allowed], env: { MCP_MEMORY_AUTH_TOKEN: TOKEN }, tokenFile: false });
  const { url } = server;

  const noToken = await post(url, initialize(1), { Authorization: undefined });
  await assertRefused(noToken, 401, 'initialize without a token (the token came from the environment)');
  assert.equal(noToken.headers.get('www-authenticate'), 'Bearer');

  for (const origin of ['http://evil.example', 'http://allowed.example', 'https://allowed.example:8080', 'null']) {
    const res = await post(url, initialize(1), { Origin: origin });
    await assertRefused(res, 403, `initialize with Origin ${origin}`);
    assert.equal(res.headers.get('mcp-session-id'), null);
  }
  const fromPage = await rawSession(url, { Origin: allowed });
  const listed = await post(url, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { Origin: allowed, 'Mcp-Session-Id': fromPage });
  assert.equal(listed.status, 200, 'a request with the allowed Origin is served');
  const body = listed.headers.get('content-type')?.startsWith('application/json') ? await listed.json() : null;
  assert.equal(body?.result?.tools?.length, TOOL_COUNT, 'tools/list answered as JSON');
  await assertRefused(
    await post(url, { jsonrpc: '2.0', id: 3, method: 'tools/list' }, { Origin: 'http://evil.example', 'Mcp-Session-Id': fromPage }),
    403,
    'a live session with a foreign Origin',
  );

  const session = await rawSession(url);
  const list = { jsonrpc: '2.0', id: 4, method: 'tools/list' };
  await assertRefused(await post(url, list), 400, 'tools/list without Mcp-Session-Id');
  await assertRefused(await post(url, list, { 'Mcp-Session-Id': 'f'.repeat(32) }), 404, 'tools/list with an unknown session');
  const get = (id) => fetch(url, { headers: { Accept: 'text/event-stream', Authorization: `Bearer ${TOKEN}`, ...(id && { 'Mcp-Session-Id': id }) } });
  await assertRefused(await get(null), 400, 'GET without Mcp-Session-Id');
  await assertRefused(await get('f'.repeat(32)), 404, 'GET with an unknown session');

  const versioned = await post(url, list, { 'Mcp-Session-Id': session, 'MCP-Protocol-Version': '2025-06-18' });
  assert.equal(versioned.status, 200, 'a supported MCP-Protocol-Version is served');
  await versioned.text();
  for (const version of ['1999-01-01', 'latest', '']) {
    await assertRefused(
      await post(url, list, { 'Mcp-Session-Id': session, 'MCP-Protocol-Version': version }),
      400,
      `MCP-Protocol-Version ${JSON.stringify(version)}`,
    );
  }

  const del = (id) => fetch(url, { method: 'DELETE', headers: { Authorization: `Bearer ${TOKEN}`, 'Mcp-Session-Id': id } });
  const ended = await del(session);
  assert.equal(ended.status, 200, 'DELETE ends the session');
  await ended.text();
  await assertRefused(await post(url, list, { 'Mcp-Session-Id': session }), 404, 'tools/list in a deleted session');
  await assertRefused(await del(session), 404, 'DELETE of a deleted session');
  const other = await post(url, list, { 'Mcp-Session-Id': fromPage, Origin: allowed });
  assert.equal(other.status, 200, 'deleting one session leaves the others');
  await other.text();
});
