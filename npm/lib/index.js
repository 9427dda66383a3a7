// The mcp-memory JavaScript API: a persistent knowledge-graph memory in a file, with the
// nine tools of @modelcontextprotocol/server-memory as methods and `handle` for raw MCP.

import { NodeDisk } from './disk.js';
import { loadEngine, readEmbeddings } from './engine.js';
import { memoryPath } from './config.js';
import { TOOL_METHODS, bytesOf, toolRequest, toolResult } from './tools.js';

export { memoryPath } from './config.js';
export { ProtocolError, ToolError } from './tools.js';

/**
 * A persistent knowledge-graph memory kept in a file. What the memory refuses is thrown as
 * an Error with a `code`: 'LOG_FAILED' (the file failed; `op` says at what: refresh, append,
 * sync, replace), 'UNAVAILABLE' (the file cannot be used) or 'IMPORT_REFUSED' (nothing was
 * imported).
 */
export class Memory {
  /**
   * Opens the memory kept in `file` (creating it; a reference memory.jsonl is converted,
   * its original kept as `.bak`). Without `file`, MEMORY_FILE_PATH or the default location.
   * Options: `durability`: 'background' (default) or 'sync'; `actor`: who changes are made
   * for (stamped on each, beside the client and session); `historyDays`: days of history the
   * file keeps for the history tool, reads asOf and undo (default 30; 0: none); `profile`:
   * the tools listed and answered — 'reference', 'default' (the default), 'rust',
   * 'memory-mcp', 'mcp-memory-py' or 'all'; `tools`: adjustments, '+name,-name'; `scope`:
   * 'global' (the default: the file for every client) or 'roots' (a client that lists
   * workspace roots is served its first root's memory: `<root>/.mcp-memory/memory.mcpmem` if
   * that directory exists, else `roots/<name>.mcpmem` beside the file).
   */
  static open(file, options = {}) {
    return new Memory(file, options);
  }

  /** The file's raw I/O (node:fs) the engine calls. */
  #disk;
  /** The engine's memory; null once closed. */
  #inner;
  #nextId = 1;

  constructor(
    file,
    { durability = 'background', actor, historyDays, profile = 'default', tools = '', scope = 'global' } = {},
  ) {
    if (!['global', 'roots'].includes(scope)) {
      throw new TypeError(`scope must be 'global' or 'roots', not ${JSON.stringify(scope)}`);
    }
    /** The memory file's absolute path. */
    this.path = memoryPath(file);
    this.#disk = new NodeDisk(this.path, { durability });
    try {
      this.#inner = loadEngine().FileMemory.open(this.#disk);
      this.#inner.setEmbeddingSource(readEmbeddings);
      if (actor) this.#inner.setActor(actor);
      if (historyDays !== undefined) this.#inner.setHistoryDays(historyDays);
      this.#inner.setTools(profile, tools);
      this.#inner.setScopeRoots(scope === 'roots');
    } catch (e) {
      this.#disk.close();
      throw e;
    }
  }

  /** Warnings since the last call (conversion, torn tails cut off, stale locks broken). */
  takeWarnings() {
    return this.#live().takeWarnings();
  }

  /** Handles one raw MCP message (a JSON-RPC line or object); returns the lines to send. */
  handle(message) {
    return this.#live().handle(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** Handles one line of the stdio transport (bytes); returns the replies as bytes, each ending in \n. */
  handleLine(line) {
    return this.#live().handleLine(line);
  }

  /**
   * Builds a slice of a search index no search has needed yet (a few milliseconds); returns
   * false, having done nothing, once all are built. Call it while idle (the stdio server does
   * after 100 ms without a message) so the first search of a large memory finds them ready.
   */
  warm() {
    return this.#live().warm();
  }

  /** Calls a tool by name; returns its structuredContent or throws a ToolError. */
  callTool(name, args) {
    return toolResult(this.handle(toolRequest(`api-${this.#nextId++}`, name, args)));
  }

  /** The graph in the reference server's memory.jsonl format. */
  exportJsonl() {
    return new TextDecoder().decode(this.#live().exportJsonl());
  }

  /** The graph in the TypeScript Memory MCP server's memory.jsonl format (with its times, tags, importance, parents). */
  exportMemoryMcp() {
    return new TextDecoder().decode(this.#live().exportMemoryMcp());
  }

  /** The graph as a compacted mcp-memory log file (the format of the memory file itself). */
  exportLog() {
    return this.#live().exportLog();
  }

  /**
   * Merges a memory file — a reference memory.jsonl (text or bytes) or an mcp-memory log —
   * into the memory; returns a summary. A file that cannot be read changes nothing.
   */
  importFile(data) {
    return this.#live().importFile(bytesOf(data));
  }

  /**
   * Rewrites the memory file as the graph as it stands (deleted text leaves the file, which
   * keeps its mode); returns the number of records it now holds.
   */
  compact() {
    return this.#live().compact();
  }

  /**
   * Writes a checkpoint if many changes followed the last one (so the next start is fast),
   * makes every change durable and closes the file (again: nothing).
   */
  close() {
    if (this.#inner === null) return;
    const inner = this.#inner;
    this.#inner = null;
    try {
      inner.close();
    } catch {
      // Nothing acknowledged depends on the checkpoint: the next start replays more.
    }
    inner.free();
    this.#disk.close();
  }

  /** `using memory = Memory.open(...)` closes it at the end of the scope. */
  [Symbol.dispose]() {
    this.close();
  }

  /** The engine's memory; throws a clear error once closed. */
  #live() {
    if (this.#inner === null) throw new Error(`${this.path}: this memory is closed`);
    return this.#inner;
  }
}

Object.assign(Memory.prototype, TOOL_METHODS);
