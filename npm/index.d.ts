// Types of the mcp-memory JavaScript API (lib/index.js).

/** A node of the graph: a name, a type and observations in insertion order. */
export interface Entity {
  name: string;
  entityType: string;
  observations: string[];
}

/** A directed, typed edge between two entity names, in active voice. */
export interface Relation {
  from: string;
  to: string;
  relationType: string;
}

/** Entities and the relations that touch them. */
export interface KnowledgeGraph {
  entities: Entity[];
  relations: Relation[];
}

/** Observations to add to one entity. */
export interface ObservationAddition {
  entityName: string;
  contents: string[];
}

/** What add_observations added to one entity (the contents it did not have yet). */
export interface ObservationResult {
  entityName: string;
  addedObservations: string[];
}

/** Observations to delete from one entity. */
export interface ObservationDeletion {
  entityName: string;
  observations: string[];
}

export interface OpenOptions {
  /** 'background' (default): fsync at most a second after a change; 'sync': before every reply. */
  durability?: 'background' | 'sync';
  /** Who changes are made for: stamped on each, beside the MCP client and session. */
  actor?: string;
  /** Days of history the file keeps for the history tool, reads asOf and undo (default 30; 0: none). */
  historyDays?: number;
  /** The tools listed and answered (default: 'default', the nine with ranked search, history and undo). */
  profile?: Profile;
  /** Adjustments to the profile: comma-separated tool names, '+name' to add one, '-name' to leave one out. */
  tools?: string;
  /**
   * Which memory a client is served: 'global' (the default: this file, for every client) or
   * 'roots' (a client that lists workspace roots gets its first root's memory:
   * `<root>/.mcp-memory/memory.mcpmem` if that directory exists, else `roots/<name>.mcpmem`
   * beside this file).
   */
  scope?: 'global' | 'roots';
}

/** A named set of tools: exactly the reference's nine, a small default, a seed server's surface, or all. */
export type Profile = 'reference' | 'default' | 'rust' | 'memory-mcp' | 'mcp-memory-py' | 'all';

/** A tool call that failed: the tool's error text (an MCP result with `isError: true`). */
export class ToolError extends Error {
  name: 'ToolError';
}

/** A request refused with a JSON-RPC error. */
export class ProtocolError extends Error {
  name: 'ProtocolError';
  /** The JSON-RPC error code. */
  code: number;
}

/**
 * A persistent knowledge-graph memory kept in a file (shareable with other processes). What
 * it refuses (an import it cannot read, a memory file it cannot use) or a storage failure is
 * thrown as a `MemoryError`.
 */
export class Memory {
  /**
   * Opens the memory kept in `file`, creating it. A reference server's memory.jsonl is
   * converted in place, its original kept as `.bak`. Without `file`: MEMORY_FILE_PATH, else
   * `<data dir>/mcp-memory/memory.mcpmem`. Throws if the file is damaged before its tail.
   */
  static open(file?: string, options?: OpenOptions): Memory;
  constructor(file?: string, options?: OpenOptions);

  /** The memory file's absolute path. */
  readonly path: string;

  /** Warnings since the last call (conversion, torn tails cut off, stale locks broken). */
  takeWarnings(): string[];

  /** Handles one raw MCP (JSON-RPC 2.0) message; returns the lines to send back, in order. */
  handle(message: string | object): string[];

  /**
   * Handles one line of the stdio transport as bytes (invalid UTF-8 becomes U+FFFD); returns
   * the replies as bytes, each followed by a newline. For servers relaying large replies.
   */
  handleLine(line: Uint8Array): Uint8Array;

  /**
   * Builds a slice of a search index no search has needed yet (a few milliseconds); returns
   * false, having done nothing, once all are built. Call it while idle (the stdio server does
   * after 100 ms without a message) so the first search of a large memory finds them ready.
   */
  warm(): boolean;

  /** Calls a tool by name; returns its structuredContent or throws a ToolError. */
  callTool(name: string, args: object): unknown;

  /** Creates the entities whose names are new; returns those created. */
  createEntities(entities: Entity[]): Entity[];
  /** Creates the relations that are new; returns those created. */
  createRelations(relations: Relation[]): Relation[];
  /** Adds observations to existing entities; throws a ToolError if one does not exist. */
  addObservations(observations: ObservationAddition[]): ObservationResult[];
  /** Deletes entities and every relation from or to them. */
  deleteEntities(entityNames: string[]): void;
  /** Deletes observations from entities. */
  deleteObservations(deletions: ObservationDeletion[]): void;
  /** Deletes relations. */
  deleteRelations(relations: Relation[]): void;
  /** The whole graph. */
  readGraph(): KnowledgeGraph;
  /** Entities whose name, type or an observation contains `query` (case-insensitive). */
  searchNodes(query: string): KnowledgeGraph;
  /** The entities with these names and the relations touching them. */
  openNodes(names: string[]): KnowledgeGraph;

  /** The graph in the reference server's memory.jsonl format. */
  exportJsonl(): string;
  /** The graph in the TypeScript Memory MCP server's memory.jsonl format (times, tags, importance, parents). */
  exportMemoryMcp(): string;
  /** The graph as a compacted mcp-memory log file (the memory file's own format). */
  exportLog(): Uint8Array;
  /**
   * Merges a memory file — a reference memory.jsonl (text or bytes) or an mcp-memory log —
   * into the memory; returns a summary. A file that cannot be read changes nothing.
   */
  importFile(data: string | ArrayBuffer | ArrayBufferView): string;
  /**
   * Rewrites the memory file as the graph as it stands (deleted text leaves the file, which
   * keeps its mode); returns the number of records it now holds.
   */
  compact(): number;

  /**
   * Writes a checkpoint if many changes followed the last one (so the next start is fast),
   * makes every change durable and closes the file.
   */
  close(): void;
  /** Closes it: `using memory = Memory.open(file)`. */
  [Symbol.dispose](): void;
}

/** Which kind of failure a memory's Error is (its `code`). */
export type MemoryErrorCode = 'LOG_FAILED' | 'UNAVAILABLE' | 'IMPORT_REFUSED';

/**
 * What a memory throws when it refuses or its storage fails: an Error whose `code` says
 * which (and, for 'LOG_FAILED', `op` says at which operation).
 */
export interface MemoryError extends Error {
  code: MemoryErrorCode;
  op?: 'refresh' | 'append' | 'sync' | 'replace';
}

/** The memory file for a `--memory-file` value and a MEMORY_FILE_PATH value. */
export function memoryPath(flag?: string, env?: string): string;
