#!/usr/bin/env node
// Builds the native server's MCP Bundle (.mcpb), the file Claude Desktop installs with a click:
//
//   npm ci --prefix host-native/bundle && node host-native/bundle/build.mjs [--binary PATH] [--out DIR]
//
// Stages manifest.json (with this platform, and the tools of the default profile as the
// binary lists them) beside the binary as server/mcp-memory (.exe on Windows), then validates
// and packs them with the official CLI (@anthropic-ai/mcpb, pinned in package.json). Without
// --binary it builds one (cargo build --release). Prints the bundle's path:
// <out>/mcp-memory-<version>-<platform>-<arch>.mcpb, out defaulting to target/bundle.
// A bundle holds one platform's binary: build it on each platform it is for.

import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(HERE, '..', '..');
const EXE = process.platform === 'win32' ? '.exe' : '';
const MCPB = path.join(HERE, 'node_modules', '.bin', `mcpb${process.platform === 'win32' ? '.cmd' : ''}`);

/** Runs the official CLI; its output goes to stderr, so stdout carries only the bundle's path. */
function mcpb(...args) {
  execFileSync(MCPB, args, { stdio: ['ignore', process.stderr, process.stderr] });
}

/** The tools `binary` lists under its default profile: name and first sentence of each. */
async function listTools(binary) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-memory-bundle-'));
  try {
    const child = spawn(binary, ['-f', path.join(dir, 'memory.mcpmem'), '--profile', 'default'], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const requests = [
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bundle-build', version: '1' } } },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    ];
    child.stdin.end(requests.map((r) => JSON.stringify(r)).join('\n') + '\n');
    let out = '';
    for await (const chunk of child.stdout) out += chunk;
    const reply = out
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line))
      .find((m) => m.id === 2);
    if (!reply?.result?.tools) throw new Error(`${binary} listed no tools: ${out}`);
    return reply.result.tools.map(({ name, description }) => ({
      name,
      description: description.split(/(?<=\.)\s/)[0],
    }));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const { values } = parseArgs({
  options: { binary: { type: 'string' }, out: { type: 'string' } },
});
if (!fs.existsSync(MCPB)) {
  throw new Error(`the mcpb CLI is not installed: run npm ci --prefix ${path.relative(process.cwd(), HERE) || '.'}`);
}
let binary = values.binary && path.resolve(values.binary);
if (!binary) {
  execFileSync('cargo', ['build', '--release', '--locked', '-p', 'mcp-memory-server'], {
    cwd: ROOT,
    stdio: ['ignore', process.stderr, process.stderr],
  });
  binary = path.join(ROOT, 'target', 'release', `mcp-memory${EXE}`);
}

const manifest = JSON.parse(fs.readFileSync(path.join(HERE, 'manifest.json'), 'utf8'));
const reported = execFileSync(binary, ['--version'], { encoding: 'utf8' }).trim();
if (reported !== `mcp-memory ${manifest.version}`) {
  throw new Error(`manifest.json is version ${manifest.version}, the binary says "${reported}"`);
}
manifest.compatibility = { platforms: [process.platform] };
manifest.tools = await listTools(binary);

const out = path.resolve(values.out ?? path.join(ROOT, 'target', 'bundle'));
const stage = path.join(out, 'stage');
fs.rmSync(stage, { recursive: true, force: true });
fs.mkdirSync(path.join(stage, 'server'), { recursive: true });
fs.writeFileSync(path.join(stage, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
fs.copyFileSync(binary, path.join(stage, 'server', `mcp-memory${EXE}`));
fs.chmodSync(path.join(stage, 'server', `mcp-memory${EXE}`), 0o755);

const bundle = path.join(out, `mcp-memory-${manifest.version}-${process.platform}-${process.arch}.mcpb`);
fs.rmSync(bundle, { force: true });
mcpb('validate', path.join(stage, 'manifest.json'));
mcpb('pack', stage, bundle);
fs.rmSync(stage, { recursive: true, force: true });
console.log(bundle);
