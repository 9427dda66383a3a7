// Types of the mcp-memory browser API (lib/browser.js, imported as 'mcp-memory/browser').

import type * as api from './index.js';

export type {
  Entity,
  KnowledgeGraph,
  MemoryError,
  MemoryErrorCode,
  ObservationAddition,
  ObservationDeletion,
  ObservationResult,
  Relation,
} from './index.js';
export { ProtocolError, ToolError } from './index.js';

export interface BrowserOpenOptions {
  /**
   * IndexedDB write durability. 'strict' (default): a reply waits until its transaction is
   * on disk; 'relaxed': until IndexedDB committed it (the browser flushes it soon after).
   */
  durability?: 'relaxed' | 'strict';
  /** The IndexedDB factory (default: the global `indexedDB`). */
  indexedDB?: IDBFactory;
  /** Days of history the memory keeps for the history tool, reads asOf and undo (default 30; 0: none). */
  historyDays?: number;
  /** The tools listed and answered (default: 'default', the nine with ranked search, history and undo). */
  profile?: api.Profile;
  /** Adjustments to the profile: comma-separated tool names, '+name' to add one, '-name' to leave one out. */
  tools?: string;
  /**
   * Where the engine's WebAssembly is: a URL, a Response, bytes or a compiled module.
   * Default: `dist/web/mcp_memory_bg.wasm` beside the package's JavaScript (bundlers must
   * copy that file; see the README). Only the first open's value counts.
   */
  wasm?: string | URL | Request | Response | BufferSource | WebAssembly.Module;
  /**
   * The embedding table semantic and hybrid search read: a URL (default: `dist/embeddings.bin`
   * beside the package's JavaScript; bundlers must copy it), its bytes, a function resolving
   * to them, or `false` for none (search then ranks by words). Read only when a search first
   * ranks by meaning; that call waits for it.
   */
  embeddings?: string | URL | BufferSource | (() => BufferSource | Promise<BufferSource>) | false;
}

/**
 * A knowledge-graph memory kept in this origin's IndexedDB (database `mcp-memory:<name>`):
 * it survives reloads, and tabs that open the same name share it without losing writes.
 * Every call resolves once the changes it made are stored. Dispatches `change` when another
 * BrowserMemory of the same name (usually in another tab) changed the memory.
 */
export class BrowserMemory extends EventTarget {
  /** Opens (creating) the memory `name` (default 'default') and replays it. */
  static open(name?: string, options?: BrowserOpenOptions): Promise<BrowserMemory>;
  /** Deletes the memory `name` and everything in it. */
  static delete(name?: string, options?: { indexedDB?: IDBFactory }): Promise<void>;

  /** The memory's name. */
  readonly name: string;

  /** Handles one raw MCP message (JSON-RPC text or object); resolves to the messages to send back. */
  handle(message: string | object): Promise<string[]>;
  /** Calls a tool by name; resolves to its structuredContent, rejects with a ToolError. */
  callTool(name: string, args: object): Promise<any>;

  /** Creates entities (names that exist are skipped); resolves to those created. */
  createEntities(entities: api.Entity[]): Promise<api.Entity[]>;
  /** Creates relations (existing ones are skipped); resolves to those created. */
  createRelations(relations: api.Relation[]): Promise<api.Relation[]>;
  /** Adds observations to existing entities; resolves to what was added to each. */
  addObservations(observations: api.ObservationAddition[]): Promise<api.ObservationResult[]>;
  /** Deletes entities and the relations that touch them. */
  deleteEntities(entityNames: string[]): Promise<void>;
  /** Deletes observations from entities. */
  deleteObservations(deletions: api.ObservationDeletion[]): Promise<void>;
  /** Deletes relations. */
  deleteRelations(relations: api.Relation[]): Promise<void>;
  /** The whole graph. */
  readGraph(): Promise<api.KnowledgeGraph>;
  /** Entities whose name, type or an observation contains `query` (case-insensitive). */
  searchNodes(query: string): Promise<api.KnowledgeGraph>;
  /** The entities with these names and the relations touching them. */
  openNodes(names: string[]): Promise<api.KnowledgeGraph>;

  /** The graph in the reference server's memory.jsonl format. */
  exportJsonl(): Promise<string>;
  /** The graph in the TypeScript Memory MCP server's memory.jsonl format (times, tags, importance, parents). */
  exportMemoryMcp(): Promise<string>;
  /** The graph as a compacted mcp-memory log file (what the native server and Node open). */
  exportLog(): Promise<Uint8Array>;
  /**
   * Imports a memory file — a reference memory.jsonl (text or bytes) or an mcp-memory log.
   * Into an empty memory it brings the file's graph exactly; otherwise it merges. Resolves
   * to a summary; a file that cannot be read changes nothing.
   */
  importFile(data: string | ArrayBuffer | ArrayBufferView): Promise<string>;

  /**
   * Rewrites the log as the graph as it stands (history and deleted text dropped) in one
   * IndexedDB transaction; resolves to the number of records it now holds.
   */
  compact(): Promise<number>;

  /** Closes the memory once the calls already made finish; resolves then. Twice: nothing more. */
  close(): Promise<void>;
  /** Closes it: `await using memory = await BrowserMemory.open(name)`. */
  [Symbol.asyncDispose](): Promise<void>;
}

/** A minimal JSON-RPC message, as the MCP TypeScript SDK's transports carry. */
export type JSONRPCMessage = { jsonrpc: '2.0'; [key: string]: unknown };

/**
 * An MCP transport to a BrowserMemory for the MCP TypeScript SDK's `Client`
 * (`await client.connect(new MemoryTransport(memory))`).
 */
export class MemoryTransport {
  constructor(memory: BrowserMemory);
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  start(): Promise<void>;
  send(message: JSONRPCMessage): Promise<void>;
  close(): Promise<void>;
}
