// A static file server for the browser test, on 127.0.0.1 and a free port:
// URL prefixes map to folders; only files are served (no listings, no '..'),
// .wasm as application/wasm. `requests` lists what was asked, so a test can
// tell that a page fetched nothing more. With { isolated: true }, every
// response carries the two headers that make a page cross-origin isolated
// (what the threaded build needs for shared memory).
//
//   const server = await serve({ '/': 'examples/web', '/edgemt/': 'build-wasm/web/package' });
//   server.url  // http://127.0.0.1:PORT
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import { extname, join, resolve } from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.wasm': 'application/wasm',
};

// The file a URL path names, or null: the longest matching prefix's folder,
// the rest of the path inside it.
function fileOf(routes, path) {
  const [prefix, folder] = routes.find(([p]) => path.startsWith(p)) ?? [];
  if (prefix === undefined) return null;
  const rest = path.slice(prefix.length);
  if (rest === '' || rest.split('/').some((part) => part === '..' || part.includes('\\') || part.includes('\0'))) {
    return null;
  }
  return join(folder, rest);
}

// The file to send for a request, or null (404).
async function fileFor(routes, request) {
  if (request.method !== 'GET' && request.method !== 'HEAD') return null;
  try {
    // The path as sent: a URL parser would resolve '..' instead of refusing it.
    const file = fileOf(routes, decodeURIComponent(request.url.split(/[?#]/)[0]));
    return file !== null && (await stat(file)).isFile() ? file : null;
  } catch {
    return null;  // a malformed path, or no such file
  }
}

const ISOLATION_HEADERS = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

export function serve(routeMap, { isolated = false } = {}) {
  const extra = isolated ? ISOLATION_HEADERS : {};
  const routes = Object.entries(routeMap).map(([prefix, folder]) => [prefix, resolve(folder)])
    .sort(([a], [b]) => b.length - a.length);
  const requests = [];
  const server = createServer(async (request, response) => {
    requests.push(request.url);
    const file = await fileFor(routes, request);
    if (file === null) {
      response.writeHead(404, { 'Content-Type': 'text/plain', ...extra }).end('not found\n');
      return;
    }
    response.writeHead(200, { 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream', ...extra });
    if (request.method === 'HEAD') response.end();
    else createReadStream(file).on('error', () => response.destroy()).pipe(response);
  });
  return new Promise((resolveServer, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      resolveServer({
        url: `http://127.0.0.1:${server.address().port}`,
        requests,
        close: () => new Promise((done) => { server.closeAllConnections(); server.close(done); }),
      });
    });
  });
}
