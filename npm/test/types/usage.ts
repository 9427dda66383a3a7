// What a TypeScript user of mcp-memory writes, checked by `tsc` against the package's
// index.d.ts and browser.d.ts (through its "exports" map). `@ts-expect-error` lines are
// misuses the declarations must reject: tsc fails if one is accepted.

import {
  Memory,
  ProtocolError,
  ToolError,
  memoryPath,
  type Entity,
  type KnowledgeGraph,
  type MemoryError,
  type ObservationResult,
} from 'mcp-memory';
import { BrowserMemory, MemoryTransport } from 'mcp-memory/browser';

export function node(file: string): void {
  using memory = Memory.open(file, { durability: 'sync' });
  const alice: Entity = { name: 'Alice', entityType: 'person', observations: ['likes tea'] };
  const created: Entity[] = memory.createEntities([alice]);
  memory.createRelations([{ from: 'Alice', to: 'Acme', relationType: 'works_at' }]);
  const added: ObservationResult[] = memory.addObservations([
    { entityName: 'Alice', contents: ['drinks coffee too'] },
  ]);
  const found: KnowledgeGraph = memory.searchNodes('tea');
  const opened: KnowledgeGraph = memory.openNodes(['Alice']);
  memory.deleteObservations([{ entityName: 'Alice', observations: ['likes tea'] }]);
  const replies: string[] = memory.handle({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
  const jsonl: string = memory.exportJsonl();
  const log: Uint8Array = memory.exportLog();
  const records: number = memory.compact();
  const path: string = memory.path;
  try {
    memory.importFile(jsonl);
  } catch (e) {
    const failure = e as MemoryError;
    if (failure.code === 'IMPORT_REFUSED' || failure.op === 'append') throw failure;
    if (e instanceof ToolError || e instanceof ProtocolError) throw e;
  }
  void [created, added, found, opened, replies, log, records, path, memoryPath('x.jsonl')];

  // @ts-expect-error: durability is 'sync' or 'background'
  Memory.open(file, { durability: 'always' });
  // @ts-expect-error: an entity needs its observations
  memory.createEntities([{ name: 'Bob', entityType: 'person' }]);
  // @ts-expect-error: the engine inside is private
  void memory.inner;
}

export async function browser(): Promise<void> {
  await using memory = await BrowserMemory.open('notes', { durability: 'relaxed' });
  const graph: KnowledgeGraph = await memory.readGraph();
  const transport = new MemoryTransport(memory);
  await transport.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
  memory.addEventListener('change', () => {});
  void graph;

  // @ts-expect-error: every call returns a promise
  const sync: KnowledgeGraph = memory.readGraph();
  void sync;
}
