// The stdio transport: newline-delimited JSON-RPC on stdin/stdout, logs on stderr.

/** Prints the engine's warnings (conversion, torn tails, stale locks) to stderr. */
export function printWarnings(memory) {
  for (const w of memory.takeWarnings()) process.stderr.write(`mcp-memory: warning: ${w}\n`);
}

/**
 * Serves MCP on stdin/stdout until stdin ends. `open({ fresh })` opens the memory; it is
 * called again with `fresh: true` if the engine ever traps (its state is then lost; the
 * file is the truth), and the failed request is answered with a JSON-RPC error.
 */
export function serveStdio(open, onEnd) {
  let { memory, engine } = open({ fresh: false });
  printWarnings(memory);
  let pending = [];

  const answer = (line) => {
    // One \r before the \n is dropped; the engine reads the rest as UTF-8 (invalid bytes
    // become U+FFFD) and answers in bytes, so large replies are never converted to strings.
    if (line[line.length - 1] === 0x0d) line = line.subarray(0, line.length - 1);
    let out;
    try {
      out = memory.handleLine(line);
      printWarnings(memory);
    } catch (e) {
      process.stderr.write(
        `mcp-memory: error: the memory engine failed (${e.message}); reloading the memory from its file\n`,
      );
      ({ memory, engine } = open({ fresh: true }));
      const reply = engine.failureReply(
        line.toString('utf8'),
        'internal error: the memory engine failed on this request and was reloaded from its file',
      );
      out = reply === undefined ? '' : reply + '\n';
    }
    if (out.length) process.stdout.write(out);
  };

  process.stdout.on('error', (e) => {
    // The client closed its end: the session is over.
    if (e.code !== 'EPIPE') throw e;
    onEnd(memory);
    process.exit(0);
  });
  process.stdin.on('data', (chunk) => {
    let at = chunk.indexOf(0x0a);
    if (at < 0) {
      pending.push(chunk);
      return;
    }
    let start = 0;
    while (at >= 0) {
      const piece = chunk.subarray(start, at);
      answer(pending.length ? Buffer.concat([...pending, piece]) : piece);
      pending = [];
      start = at + 1;
      at = chunk.indexOf(0x0a, start);
    }
    if (start < chunk.length) pending.push(chunk.subarray(start));
  });
  process.stdin.on('end', () => {
    if (pending.length) answer(Buffer.concat(pending));
    onEnd(memory);
  });
}
