// mcp-memory in the browser: a knowledge-graph memory kept in IndexedDB that survives reloads,
// with the same tools and MCP behaviour as the native server (the same Rust core, built with
// wasm-bindgen), an in-page MCP endpoint (`handle`) and a transport for the MCP TypeScript
// SDK's client (`MemoryTransport`). No Node APIs: works from a bundler or a plain
// <script type="module">.

import init, { QueueMemory, failureReply } from '../dist/web/mcp_memory.js';
import { IdbLog } from './idb.js';
import { TOOL_METHODS, bytesOf, toolRequest, toolResult } from './tools.js';

export { ProtocolError, ToolError } from './tools.js';

let engine;

/**
 * Loads the engine once. `wasm`: where the engine's .wasm is (a URL, a Response, bytes or a
 * WebAssembly.Module); by default `mcp_memory_bg.wasm` next to the engine's JavaScript.
 */
function loadEngine(wasm) {
  engine ??= init(wasm === undefined ? undefined : { module_or_path: wasm }).catch((e) => {
    engine = undefined; // a later open may name the right file
    throw e;
  });
  return engine;
}

const decoder = new TextDecoder();

/** The embedding table shipped beside the engine. */
const EMBEDDINGS = new URL('../dist/embeddings.bin', import.meta.url);

/** The bytes of an `embeddings` option (see `BrowserMemory.open`), or null for none. */
async function tableBytes(source) {
  if (typeof source === 'function') source = await source();
  if (typeof source === 'string' || source instanceof URL) {
    const response = await fetch(source);
    if (!response.ok) throw new Error(`${source}: HTTP ${response.status}`);
    source = await response.arrayBuffer();
  }
  return source ? bytesOf(source) : null;
}

/**
 * The engine's memory over these records, with `settings` applied: `historyDays` of history
 * if given, the tools of `profile` adjusted by `tools`.
 */
function openQueue(records, { historyDays, profile = 'default', tools = '' }) {
  const inner = QueueMemory.open(records);
  try {
    if (historyDays !== undefined) inner.setHistoryDays(historyDays);
    inner.setTools(profile, tools);
  } catch (e) {
    inner.free();
    throw e;
  }
  return inner;
}

/** What to answer to `message` when it could not be handled: a JSON-RPC internal error. */
function failureReplies(message, reason) {
  const reply = failureReply(message, reason);
  return reply === undefined ? [] : [reply];
}

/**
 * What went wrong, in words: an IndexedDB failure is a DOMException whose message may be
 * empty (Chromium's QuotaExceededError has none), so its name is given too, and a full
 * quota is said plainly.
 */
function described(e) {
  if (e?.name === 'QuotaExceededError') {
    return `the site's storage quota is used up (QuotaExceededError${e.message ? `: ${e.message}` : ''}); free some (delete memories) or ask the browser for more (navigator.storage.persist()), then write again`;
  }
  if (e instanceof DOMException) return e.message ? `${e.name}: ${e.message}` : e.name;
  return e?.message || String(e);
}

export class BrowserMemory extends EventTarget {
  /**
   * Opens (creating) the memory called `name` in this origin's IndexedDB and replays it.
   * Options: `durability`: 'strict' (default: a reply waits until its change is on disk) or
   * 'relaxed' (until IndexedDB committed it; the browser flushes it to disk soon after); `indexedDB`: the IndexedDB factory (the global one by default); `historyDays`:
   * days of history kept for the history tool, reads asOf and undo (default 30; 0: none);
   * `profile`: the tools listed and answered — 'reference', 'default' (the default), 'rust',
   * 'memory-mcp', 'mcp-memory-py' or 'all'; `tools`: adjustments, '+name,-name'; `wasm`:
   * where the engine's .wasm file is (see the README); `embeddings`: the embedding table
   * semantic search reads — a URL (by default `embeddings.bin` next to the engine), its bytes,
   * a function resolving to them, or `false` for none. It is fetched only when a search
   * first ranks by meaning; that call waits for it.
   * Rejects if IndexedDB is unavailable or the log holds records this version cannot read.
   */
  static async open(name = 'default', { durability = 'strict', indexedDB, historyDays, profile, tools, wasm, embeddings = EMBEDDINGS } = {}) {
    await loadEngine(wasm);
    const log = await IdbLog.open(name, { durability, indexedDB });
    try {
      const records = await log.load();
      const settings = { historyDays, profile, tools };
      return new BrowserMemory(name, log, openQueue(records, settings), settings, embeddings);
    } catch (e) {
      log.close();
      throw e;
    }
  }

  /** Deletes the memory called `name` from this origin (every open copy is closed). */
  static async delete(name = 'default', { indexedDB } = {}) {
    await IdbLog.delete(name, { indexedDB });
  }

  /** The IndexedDB log. */
  #log;
  /** The engine's memory. */
  #inner;
  #closed = false;
  #nextId = 1;
  /** Calls run one at a time, in call order. */
  #queue = Promise.resolve();
  /** Other tabs' word that they changed the memory. */
  #channel;
  /** What each engine memory is opened with: days of history, tool profile and adjustments. */
  #settings;

  /** Where the embedding table comes from (the `embeddings` option). */
  #embeddings;
  /** The table's bytes once read (null: there is none), undefined before. */
  #table;
  /** Whether the engine asked for the table during the current call before it was read. */
  #wanted = false;

  /** Use `BrowserMemory.open`. */
  constructor(name, log, inner, settings, embeddings) {
    super();
    /** The memory's name (its IndexedDB database is `mcp-memory:<name>`). */
    this.name = name;
    this.#log = log;
    this.#inner = inner;
    this.#settings = settings;
    this.#embeddings = embeddings;
    this.#offerTable(inner);
    // Other tabs (and other BrowserMemory objects of this name) say when they changed the
    // memory; listeners may want to look again.
    this.#channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel(`mcp-memory:${name}`) : null;
    if (this.#channel) this.#channel.onmessage = () => this.dispatchEvent(new Event('change'));
  }

  /**
   * Handles one MCP message (a JSON-RPC object or its text): resolves to the messages to
   * send back, in order, once every change it made is stored.
   */
  handle(message) {
    const text = typeof message === 'string' ? message : JSON.stringify(message);
    return this.#run(
      (inner) => inner.handle(text),
      (reason) => failureReplies(text, reason),
    );
  }

  /** Calls a tool by name; resolves to its structuredContent or rejects with a ToolError. */
  async callTool(name, args) {
    return toolResult(await this.handle(toolRequest(`api-${this.#nextId++}`, name, args)));
  }

  /** The graph in the reference server's memory.jsonl format. */
  async exportJsonl() {
    return decoder.decode(await this.#run((inner) => inner.exportJsonl()));
  }

  /** The graph in the TypeScript Memory MCP server's memory.jsonl format (times, tags, importance, parents). */
  async exportMemoryMcp() {
    return decoder.decode(await this.#run((inner) => inner.exportMemoryMcp()));
  }

  /** The graph as a compacted mcp-memory log file (the native server's file format). */
  exportLog() {
    return this.#run((inner) => inner.exportLog());
  }

  /**
   * Merges a memory file — a reference memory.jsonl (text or bytes) or an mcp-memory log —
   * into the memory; resolves to a summary. A file that cannot be read changes nothing.
   */
  importFile(data) {
    let bytes;
    try {
      bytes = bytesOf(data);
    } catch (e) {
      return Promise.reject(e);
    }
    return this.#run((inner) => inner.importFile(bytes));
  }

  /**
   * Rewrites the memory's log as the records of the graph as it stands (its history, deleted
   * text included, is dropped), in one IndexedDB transaction; resolves to the number of
   * records it now holds. Other tabs reload it whole.
   */
  compact() {
    return this.#run((inner) => inner.compact());
  }

  /**
   * Closes the memory: calls already made still finish, then the engine stores what it
   * keeps for later (the usage counts not stored yet; nothing acknowledged depends on it),
   * then the database connection is closed; resolves then. Closing twice does nothing more.
   */
  close() {
    if (!this.#closed) {
      const last = this.#run((inner) => inner.close()).catch(() => {});
      this.#closed = true;
      this.#queue = last.finally(() => {
        this.#inner.free();
        this.#log.close();
        this.#channel?.close();
      });
    }
    return this.#queue;
  }

  /** `await using memory = await BrowserMemory.open(...)` closes it at the end of the scope. */
  [Symbol.asyncDispose]() {
    return this.close();
  }

  /**
   * Runs `call` on the engine inside one IndexedDB transaction (see idb.js): others' records
   * in first, this call's records out after. If the transaction fails, the engine is
   * reloaded from what is stored (so it holds nothing unstored) and the call resolves to
   * `failed(reason)`, or rejects if there is no `failed`.
   */
  #run(call, failed) {
    if (this.#closed) return Promise.reject(new Error(`memory '${this.name}' is closed`));
    const attempt = this.#queue.then(async () => {
      let wrote = false;
      try {
        for (;;) {
          this.#wanted = false;
          const result = await this.#log.cycle(({ records, replaced }) => {
            this.#inner.deliver(records, replaced);
            const result = call(this.#inner);
            const writes = this.#inner.takeWrites();
            wrote = writes.records.length > 0;
            return { result, writes };
          });
          if (wrote) this.#channel?.postMessage('change');
          // A search asked for the embedding table before it was read: read it, and answer
          // the call again with it (a call that asks for it only reads, unless it also
          // wrote, and then its answer stands).
          if (!this.#wanted || wrote || this.#table !== undefined) return result;
          this.#table = await tableBytes(this.#embeddings).catch(() => null);
          this.#offerTable(this.#inner);
        }
      } catch (e) {
        let reason = `the memory could not be stored: ${described(e)}`;
        try {
          await this.#reload();
        } catch (reloading) {
          reason += `; reloading it failed too: ${described(reloading)}`;
        }
        if (!failed) throw new Error(reason, { cause: e });
        return failed(reason);
      }
    });
    this.#queue = attempt.catch(() => {});
    return attempt;
  }

  /** Gives `inner` the embedding table, as far as it is read. */
  #offerTable(inner) {
    inner.setEmbeddingSource(() => {
      if (this.#table === undefined) this.#wanted = true;
      return this.#table ?? undefined;
    });
  }

  /** Replaces the engine's memory with what the log holds. */
  async #reload() {
    const records = await this.#log.load();
    const old = this.#inner;
    this.#inner = openQueue(records, this.#settings);
    this.#offerTable(this.#inner);
    try {
      old.free();
    } catch {
      // An engine call that trapped leaves its object borrowed; it is dropped regardless.
    }
  }
}

Object.assign(BrowserMemory.prototype, TOOL_METHODS);

/**
 * An MCP transport to a BrowserMemory for the MCP TypeScript SDK's `Client`
 * (`await client.connect(new MemoryTransport(memory))`): messages go to `memory.handle`
 * and its replies come back through `onmessage`, so an in-page agent speaks to the memory
 * exactly as to the native server over stdio.
 */
export class MemoryTransport {
  #memory;
  #closed = false;

  constructor(memory) {
    this.#memory = memory;
    /** Set by the SDK. */
    this.onmessage = undefined;
    this.onerror = undefined;
    this.onclose = undefined;
  }

  async start() {}

  async send(message) {
    if (this.#closed) throw new Error('the transport is closed');
    let replies;
    try {
      replies = await this.#memory.handle(message);
    } catch (e) {
      this.onerror?.(e);
      throw e;
    }
    for (const reply of replies) this.onmessage?.(JSON.parse(reply));
  }

  async close() {
    if (this.#closed) return;
    this.#closed = true;
    this.onclose?.();
  }
}
