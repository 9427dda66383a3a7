// The stdio transport: newline-delimited JSON-RPC on stdin/stdout, logs on stderr.

import { loadEngine } from './engine.js';

/** How long no message comes before the server builds its search indexes (as the native one). */
const IDLE_MS = 100;

/** Prints the engine's warnings (conversion, torn tails, stale locks) to stderr. */
export function printWarnings(memory) {
  for (const w of memory.takeWarnings()) process.stderr.write(`mcp-memory: warning: ${w}\n`);
}

/**
 * Serves MCP on stdin/stdout until stdin ends, one message at a time and in order. `open()`
 * opens the memory; if the engine ever traps, a fresh engine instance is loaded, `open()` is
 * called again (the memory's state is lost; the file is the truth), and the failed request is
 * answered with a JSON-RPC error. `onEnd(memory)` runs once every reply is written.
 *
 * Replies respect backpressure: while stdout's buffer is full (a client that stops reading),
 * no more input is read or handled, so the server's memory stays bounded; the client's writes
 * then block on the full pipe.
 */
export function serveStdio(open, onEnd) {
  let memory = open();
  printWarnings(memory);
  /** Whole lines not handled yet, and the pieces of the line being read. */
  const lines = [];
  let partial = [];
  /** Whether stdout's buffer is full (waiting for 'drain'). */
  let full = false;
  let ended = false;
  let finished = false;
  /** The timer that starts warming once no message came for IDLE_MS, or the next slice. */
  let idle;
  let slice;

  /**
   * Builds the search indexes a slice at a time (a few milliseconds each), input read
   * between slices, until they are built or a message comes: the first search then finds
   * them ready.
   */
  const warm = () => {
    if (lines.length || ended) return;
    let more = false;
    try {
      more = memory.warm();
    } catch {
      // A failed engine is reloaded by the next message, which reports it.
    }
    if (more) slice = setImmediate(warm).unref();
  };

  /** The replies to one line, as bytes. */
  const answer = (line) => {
    // One \r before the \n is dropped; the engine reads the rest as UTF-8 (invalid bytes
    // become U+FFFD) and answers in bytes, so large replies are never converted to strings.
    if (line[line.length - 1] === 0x0d) line = line.subarray(0, line.length - 1);
    try {
      const out = memory.handleLine(line);
      printWarnings(memory);
      return out;
    } catch (e) {
      process.stderr.write(
        `mcp-memory: error: the memory engine failed (${e.message}); reloading the memory from its file\n`,
      );
      const engine = loadEngine({ fresh: true });
      memory = open();
      const reply = engine.failureReply(
        line.toString('utf8'),
        'internal error: the memory engine failed on this request and was reloaded from its file',
      );
      return reply === undefined ? '' : reply + '\n';
    }
  };

  /** Handles waiting lines until stdout is full; reads more input only when none wait. */
  const pump = () => {
    while (lines.length && !full) {
      const out = answer(lines.shift());
      if (out.length && !process.stdout.write(out)) full = true;
    }
    if (full || lines.length) {
      process.stdin.pause();
    } else if (ended) {
      if (!finished) {
        finished = true;
        onEnd(memory);
      }
    } else {
      process.stdin.resume();
      clearTimeout(idle);
      clearImmediate(slice);
      idle = setTimeout(warm, IDLE_MS).unref();
    }
  };

  process.stdout.on('drain', () => {
    full = false;
    pump();
  });
  process.stdout.on('error', (e) => {
    // The client closed its end: the session is over.
    if (e.code !== 'EPIPE') throw e;
    memory.close();
    process.exit(0);
  });
  process.stdin.on('data', (chunk) => {
    let start = 0;
    let at = chunk.indexOf(0x0a);
    while (at >= 0) {
      const piece = chunk.subarray(start, at);
      lines.push(partial.length ? Buffer.concat([...partial, piece]) : piece);
      partial = [];
      start = at + 1;
      at = chunk.indexOf(0x0a, start);
    }
    if (start < chunk.length) partial.push(chunk.subarray(start));
    pump();
  });
  process.stdin.on('end', () => {
    if (partial.length) lines.push(Buffer.concat(partial));
    partial = [];
    ended = true;
    pump();
  });
}
