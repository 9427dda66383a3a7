// The nine tools of @modelcontextprotocol/server-memory as methods, shared by the Node
// `Memory` (synchronous) and the browser's `BrowserMemory` (asynchronous): each method calls
// `this.callTool`, and a result that is a promise stays one.

/** A tool call that failed: the tool's error text (an MCP result with `isError: true`). */
export class ToolError extends Error {
  constructor(message) {
    super(message);
    this.name = 'ToolError';
  }
}

/** A request the server refused with a JSON-RPC error. */
export class ProtocolError extends Error {
  constructor(error) {
    super(error.message);
    this.name = 'ProtocolError';
    this.code = error.code;
  }
}

/** The tools/call request for a tool. */
export function toolRequest(id, name, args) {
  return JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
}

/** The structuredContent of a tools/call's replies (its reply is the last); throws its error. */
export function toolResult(replies) {
  const reply = JSON.parse(replies[replies.length - 1]);
  if (reply.error) throw new ProtocolError(reply.error);
  if (reply.result.isError) throw new ToolError(reply.result.content[0].text);
  return reply.result.structuredContent;
}

const encoder = new TextEncoder();

/** A file's bytes from text (UTF-8), a Uint8Array or Buffer, another typed array or an ArrayBuffer. */
export function bytesOf(data) {
  if (typeof data === 'string') return encoder.encode(data);
  if (data instanceof Uint8Array) return data;
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  throw new TypeError(`a file must be a string, bytes or an ArrayBuffer, not ${Object.prototype.toString.call(data)}`);
}

/** `f(value)`, or a promise of it if `value` is a promise. */
function then(value, f) {
  return value instanceof Promise ? value.then(f) : f(value);
}

const nothing = () => undefined;

/** Methods for a class with `callTool(name, args)`; assign them to its prototype. */
export const TOOL_METHODS = {
  /** Creates entities (names that exist are skipped); returns those created. */
  createEntities(entities) {
    return then(this.callTool('create_entities', { entities }), (r) => r.entities);
  },
  /** Creates relations (existing ones are skipped); returns those created. */
  createRelations(relations) {
    return then(this.callTool('create_relations', { relations }), (r) => r.relations);
  },
  /** Adds observations to existing entities; returns what was added to each. */
  addObservations(observations) {
    return then(this.callTool('add_observations', { observations }), (r) => r.results);
  },
  /** Deletes entities and the relations that touch them. */
  deleteEntities(entityNames) {
    return then(this.callTool('delete_entities', { entityNames }), nothing);
  },
  /** Deletes observations from entities. */
  deleteObservations(deletions) {
    return then(this.callTool('delete_observations', { deletions }), nothing);
  },
  /** Deletes relations. */
  deleteRelations(relations) {
    return then(this.callTool('delete_relations', { relations }), nothing);
  },
  /** The whole graph. */
  readGraph() {
    return this.callTool('read_graph', {});
  },
  /** Entities whose name, type or an observation contains `query` (case-insensitive). */
  searchNodes(query) {
    return this.callTool('search_nodes', { query });
  },
  /** The entities with these names and the relations touching them. */
  openNodes(names) {
    return this.callTool('open_nodes', { names });
  },
};
