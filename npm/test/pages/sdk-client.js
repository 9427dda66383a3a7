// Bundled by test/browser.chromium.test.mjs (esbuild) into an in-page agent: the MCP
// TypeScript SDK's Client connected to a BrowserMemory through MemoryTransport.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { BrowserMemory, MemoryTransport } from '../../lib/browser.js';

/** Connects an SDK client to the memory `name` and makes `calls` ([tool, args] pairs). */
window.sdkSession = async (name, calls) => {
  const wasm = new URL('../../dist/web/mcp_memory_bg.wasm', window.location.href);
  const memory = await BrowserMemory.open(name, { wasm, profile: 'all' });
  const client = new Client({ name: 'in-page-agent', version: '1.0.0' });
  await client.connect(new MemoryTransport(memory));
  const tools = (await client.listTools()).tools.map((t) => t.name);
  const results = [];
  for (const [tool, args] of calls) results.push(await client.callTool({ name: tool, arguments: args }));
  await client.close();
  await memory.close();
  return { server: client.getServerVersion(), tools, results };
};
