#!/usr/bin/env node
// `mcp-memory`: persistent knowledge-graph memory for LLM agents, served over MCP — the
// same command line as the native binary (host-native/src/main.rs).

import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { createRequire } from 'node:module';

import { Memory } from '../lib/index.js';
import { loadEngine } from '../lib/engine.js';
import { memoryPath } from '../lib/config.js';
import { printWarnings, serveStdio } from '../lib/server.js';

const { version } = createRequire(import.meta.url)('../package.json');

const HELP = `Persistent knowledge-graph memory for LLM agents (MCP server)

Usage: mcp-memory [OPTIONS] [COMMAND]

Commands:
  serve   Serve MCP (the default)
  export  Write the memory in another format (to stdout, or to --output)
  forget  Forget entities for good (every trace of them), then compact the file so their
          text leaves it; reports whether their names still occur in it
  import  Merge a memory file (a reference or Memory MCP memory.jsonl, an mcp-memory log, a
          Rust mcp-memory 1.x/2.0 log) into the memory
  verify  Check a memory file (a log or a reference memory.jsonl) without changing it
  repair  Write the readable part of a damaged memory file to a new file (FILE is not changed)
  compact Rewrite the memory file keeping --history-days of history (older changes and
          deleted text leave the file)

Options:
  -f, --memory-file <PATH>          The memory file [default: $MEMORY_FILE_PATH, else
                                    <data dir>/mcp-memory/memory.mcpmem]. A reference
                                    server's memory.jsonl is converted in place; the
                                    original is kept as .bak
      --durability <sync|background>
                                    When changes reach the disk: sync fsyncs before every
                                    reply; background fsyncs at most one second later
                                    [default: background]
      --actor <NAME>                Who this server runs for: stamped on every change it
                                    makes, beside the client's name and session, in the
                                    memory file [env: MCP_MEMORY_ACTOR=]
      --history-days <DAYS>         Days of history the memory file keeps (what the
                                    history tool lists, reads asOf and undo reach):
                                    compaction folds older changes into the state they
                                    left; 0 keeps none [env: MCP_MEMORY_HISTORY_DAYS=]
                                    [default: 30]
      --profile <NAME>              The tools listed and answered: reference (exactly the
                                    reference server's nine), default (the nine, ranked
                                    search, history, undo), rust (the Rust mcp-memory's
                                    26), memory-mcp, mcp-memory-py (what this server has of
                                    those servers' tools), all [env: MCP_MEMORY_PROFILE=]
                                    [default: default]
      --tools <LIST>                Adjusts the profile: comma-separated tool names, +name
                                    to add one, -name to leave one out (e.g.
                                    --tools=+get_entity,-undo) [env: MCP_MEMORY_TOOLS=]
      --scope <SCOPE>               Which memory a client is served: global (one for every
                                    client) or roots (the memory of the client's first
                                    workspace root: <root>/.mcp-memory/memory.mcpmem if
                                    the root has that directory, else roots/ beside the
                                    memory file; clients without roots get the global one)
                                    [env: MCP_MEMORY_SCOPE=] [default: global]
      --transport <stdio>           How MCP clients connect [default: stdio]
  -h, --help                        Print help
  -V, --version                     Print version

export: --format jsonl (default), log (compacted mcp-memory log) or memory-mcp (the
        TypeScript Memory MCP server's memory.jsonl, with its times, tags, importance and
        parents), -o/--output FILE
import: FILE
verify: FILE, --json (the report as one JSON object). Exit code: 0 clean; 1 damaged (the
        file does not open); 3 only a torn tail (the file opens, and the tail is dropped);
        2 the file cannot be read
repair: FILE, -o/--output OUT [default: FILE.repaired], --force (overwrite OUT). A log keeps
        every whole record before its first problem; a reference memory.jsonl keeps the
        lines its reader accepts. The new file has FILE's permissions
`;

function fail(message) {
  process.stderr.write(`error: ${message}\n\nFor more information, try '--help'.\n`);
  process.exit(2);
}

/** The arguments, with `--tools LIST` joined as `--tools=LIST`: its value may begin with a dash. */
function joinToolsValue(args) {
  const out = [];
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--tools' && i + 1 < args.length) out.push(`--tools=${args[++i]}`);
    else out.push(args[i]);
  }
  return out;
}

let parsed;
try {
  parsed = parseArgs({
    args: joinToolsValue(process.argv.slice(2)),
    allowPositionals: true,
    options: {
      'memory-file': { type: 'string', short: 'f' },
      durability: { type: 'string', default: 'background' },
      actor: { type: 'string' },
      'history-days': { type: 'string' },
      profile: { type: 'string' },
      tools: { type: 'string' },
      scope: { type: 'string' },
      transport: { type: 'string', default: 'stdio' },
      format: { type: 'string' },
      output: { type: 'string', short: 'o' },
      json: { type: 'boolean' },
      force: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
      version: { type: 'boolean', short: 'V' },
    },
  });
} catch (e) {
  fail(e.message);
}
const { values, positionals } = parsed;
if (values.help) {
  process.stdout.write(HELP);
  process.exit(0);
}
if (values.version) {
  process.stdout.write(`mcp-memory ${version}\n`);
  process.exit(0);
}
if (!['sync', 'background'].includes(values.durability)) {
  fail(`invalid value '${values.durability}' for '--durability <sync|background>'`);
}
if (['tcp', 'http'].includes(values.transport)) {
  fail(`--transport ${values.transport} is served by the native mcp-memory binary; this package serves stdio`);
}
if (values.transport !== 'stdio') fail(`invalid value '${values.transport}' for '--transport <stdio>'`);
if (values['memory-file'] === '') fail("a value is required for '--memory-file <PATH>' but none was supplied");
// The PostgreSQL store needs a database client: the native binary has it. A file path in
// MCP_MEMORY_STORE is the memory file, as for the native binary (-f overrides it).
const store = process.env.MCP_MEMORY_STORE ?? '';
if (/^postgres(ql)?:\/\//.test(store) && values['memory-file'] === undefined) {
  fail('MCP_MEMORY_STORE names a PostgreSQL store, which the native mcp-memory binary serves; this package serves memory files');
}

const [command = 'serve', ...rest] = positionals;
const OPTION_OF = { format: ['export'], output: ['export', 'repair'], json: ['verify'], force: ['repair'] };
for (const [option, commands] of Object.entries(OPTION_OF)) {
  if (!commands.includes(command) && values[option] !== undefined) fail(`unexpected argument '--${option}' found`);
}
const path = memoryPath(values['memory-file'] ?? (store || undefined));
const historyDays = values['history-days'] ?? process.env.MCP_MEMORY_HISTORY_DAYS ?? '30';
if (!/^\d+$/.test(historyDays) || Number(historyDays) > 4294967295) {
  fail(`invalid value '${historyDays}' for '--history-days <DAYS>': a whole number of days is expected`);
}
const options = {
  durability: values.durability,
  actor: values.actor ?? process.env.MCP_MEMORY_ACTOR,
  historyDays: Number(historyDays),
  profile: values.profile ?? process.env.MCP_MEMORY_PROFILE ?? 'default',
  tools: values.tools ?? process.env.MCP_MEMORY_TOOLS ?? '',
  scope: values.scope ?? (process.env.MCP_MEMORY_SCOPE || 'global'),
};
if (!['global', 'roots'].includes(options.scope)) {
  fail(`invalid value '${options.scope}' for '--scope <SCOPE>'\n  [possible values: global, roots]`);
}
try {
  loadEngine().checkTools(options.profile, options.tools);
} catch (e) {
  fail(e.message);
}

/** The memory, opened with the command line's options and then `overrides`. */
function open(overrides = {}) {
  const memory = new Memory(path, { ...options, ...overrides });
  printWarnings(memory);
  return memory;
}

try {
  switch (command) {
    case 'serve': {
      if (rest.length) fail(`unexpected argument '${rest[0]}'`);
      let opened = false;
      serveStdio(
        () => {
          // A fresh engine (after a failure) would serve the file, not the memory the
          // client's workspace chose: the server stops instead (a client starts it again).
          if (opened && options.scope === 'roots') {
            process.stderr.write(
              'mcp-memory: error: with --scope roots the workspace memory cannot be reopened for the session: stopping\n',
            );
            process.exit(1);
          }
          opened = true;
          return new Memory(path, options);
        },
        (memory) => {
          memory.close();
          process.stdout.end();
        },
      );
      process.stderr.write(`mcp-memory ${version}: serving ${path} on stdio\n`);
      break;
    }
    case 'export': {
      if (rest.length) fail(`unexpected argument '${rest[0]}'`);
      const format = values.format ?? 'jsonl';
      if (!['jsonl', 'log', 'memory-mcp'].includes(format)) fail(`invalid value '${format}' for '--format <FORMAT>'`);
      const data = exportOf(fs.existsSync(path) ? open() : null, format);
      if (values.output) fs.writeFileSync(values.output, data);
      else process.stdout.write(data);
      break;
    }
    case 'import': {
      if (rest.length !== 1) fail('import needs exactly one FILE');
      const data = fs.readFileSync(rest[0]); // before the memory: a missing input creates nothing
      const memory = open();
      let summary;
      try {
        summary = memory.importFile(data);
      } catch (e) {
        if (e.code !== 'IMPORT_REFUSED') throw e;
        // As the native CLI: the input could not be read; the memory is fine (EX_DATAERR).
        process.stderr.write(`Error: ${rest[0]} was not imported: ${e.message}\n`);
        process.exit(65);
      } finally {
        memory.close();
      }
      process.stderr.write(`mcp-memory: ${path}: ${summary}\n`);
      break;
    }
    case 'forget': {
      if (!rest.length) fail('forget needs at least one NAME');
      // The command calls the tool whatever profile serving would list.
      const memory = open({ profile: 'all', tools: '' });
      try {
        process.stdout.write(`${JSON.stringify(memory.callTool('forget', { entityNames: rest }), null, 2)}\n`);
      } finally {
        memory.close();
      }
      break;
    }
    case 'compact': {
      if (rest.length) fail(`unexpected argument '${rest[0]}'`);
      const memory = open();
      const records = memory.compact();
      memory.close();
      process.stderr.write(`mcp-memory: ${path}: compacted to ${records} records\n`);
      break;
    }
    case 'verify': {
      if (rest.length !== 1) fail('verify needs exactly one FILE');
      process.exitCode = verify(rest[0], values.json);
      break;
    }
    case 'repair': {
      if (rest.length !== 1) fail('repair needs exactly one FILE');
      repair(rest[0], values.output ?? `${rest[0]}.repaired`, values.force);
      break;
    }
    default:
      fail(`unrecognized subcommand '${command}'`);
  }
} catch (e) {
  process.stderr.write(`Error: ${e.message}\n`);
  process.exit(1);
}

/** The memory in `format` ('jsonl' or 'log'); `memory` null for a file that does not exist. */
function exportOf(memory, format) {
  if (memory === null) return format === 'log' ? Buffer.from(loadEngine().emptyLog()) : '';
  const exports = { jsonl: 'exportJsonl', log: 'exportLog', 'memory-mcp': 'exportMemoryMcp' };
  const data = memory[exports[format]]();
  memory.close();
  return data;
}

/**
 * `verify FILE`: prints the engine's report on stdout (`FILE: ` and its text, or its JSON)
 * and returns the exit code (the verdict's, or 2 if the file cannot be read).
 */
function verify(file, json) {
  let data;
  try {
    data = fs.readFileSync(file);
  } catch (e) {
    process.stderr.write(`Error: cannot read ${file}: ${e.message}\n`);
    return 2;
  }
  const report = loadEngine().verifyFile(data);
  process.stdout.write(json ? `${report.json()}\n` : `${file}: ${report.text()}\n`);
  return report.exitCode;
}

/**
 * `repair FILE`: writes the engine's repair of FILE to `out` (a new file unless `force`;
 * never FILE itself) with FILE's permissions, and prints what was kept and dropped.
 */
function repair(file, out, force) {
  const data = fs.readFileSync(file);
  const stat = fs.statSync(file);
  const existing = fs.statSync(out, { throwIfNoEntry: false });
  if (existing && existing.dev === stat.dev && existing.ino === stat.ino) {
    throw new Error(`${out} is the file being repaired; repair never changes it, choose another output`);
  }
  let repaired;
  try {
    repaired = loadEngine().repairFile(data);
  } catch (e) {
    throw new Error(`${file}: ${e.message}`);
  }
  const mode = stat.mode & 0o7777;
  let fd;
  try {
    fd = fs.openSync(out, force ? 'w' : 'wx', mode);
  } catch (e) {
    if (e.code === 'EEXIST') throw new Error(`${out} already exists; pass --force to overwrite it`);
    throw e;
  }
  try {
    fs.fchmodSync(fd, mode); // the umask may have narrowed it, and an overwritten file keeps its old one
    fs.writeFileSync(fd, repaired.bytes());
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  process.stdout.write(`${file}: wrote ${out} (${file} is unchanged)\n${repaired.summary()}\n`);
}
