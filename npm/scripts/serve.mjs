// A static file server for local pages (the demo, the browser tests): serves `root` on
// 127.0.0.1 with the right content types (a .wasm file must be application/wasm for
// WebAssembly.instantiateStreaming). Not for production.

import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

/**
 * The file under `root` for a URL path (a directory means its index.html) and its content
 * type; null if there is none or the path leaves `root`.
 */
export function fileFor(root, pathname) {
  const base = path.resolve(root);
  let file = path.join(base, decodeURIComponent(pathname));
  if (file !== base && !file.startsWith(base + path.sep)) return null;
  if (fs.existsSync(file) && fs.statSync(file).isDirectory()) file = path.join(file, 'index.html');
  if (!fs.existsSync(file)) return null;
  return { file, type: TYPES[path.extname(file)] ?? 'application/octet-stream' };
}

/** Serves the files under `root` on 127.0.0.1:`port` (0: any free port); resolves to the server. */
export function serveStatic(root, port = 0) {
  const server = http.createServer((req, res) => {
    const found = fileFor(root, new URL(req.url, 'http://localhost').pathname);
    if (!found) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    res.writeHead(200, { 'content-type': found.type, 'cache-control': 'no-store' });
    fs.createReadStream(found.file).pipe(res);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

/** The server's base URL. */
export function urlOf(server) {
  return `http://127.0.0.1:${server.address().port}`;
}
