// A tiny static server for built sites, shared by the browser checks: files from one
// folder on 127.0.0.1 (a random port), index.html for folders, 404.html with status 404.

import http from 'node:http';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';

export const CONTENT_TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.xml': 'application/xml; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.txt': 'text/plain; charset=utf-8',
  '.bib': 'text/plain; charset=utf-8',
  '.ris': 'text/plain; charset=utf-8',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
};

// ---------------------------------------------------------------------------------------
// A tiny static server: index.html for folders, 404.html with status 404.

export function startServer(root) {
  const rootReal = fs.realpathSync(root);
  const inside = (p) => p === rootReal || p.startsWith(rootReal + path.sep);

  const server = http.createServer(async (req, res) => {
    const send = (status, headers, body) => {
      res.writeHead(status, { 'cache-control': 'no-store', ...headers });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    const notFound = async () => {
      try {
        const body = await fsp.readFile(path.join(rootReal, '404.html'));
        send(404, { 'content-type': CONTENT_TYPES['.html'] }, body);
      } catch {
        send(404, { 'content-type': 'text/plain; charset=utf-8' }, 'not found\n');
      }
    };
    try {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        return send(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }, 'method not allowed\n');
      }
      const url = new URL(req.url, 'http://127.0.0.1');
      let rel;
      try {
        rel = decodeURIComponent(url.pathname);
      } catch {
        return send(400, { 'content-type': 'text/plain' }, 'bad request\n');
      }
      if (rel.includes('\0') || rel.includes('\\') || rel.split('/').some((s) => s === '..')) {
        return send(400, { 'content-type': 'text/plain' }, 'bad request\n');
      }
      let file = path.join(rootReal, rel);
      let stat;
      try {
        file = await fsp.realpath(file);
        if (!inside(file)) return notFound();
        stat = await fsp.stat(file);
      } catch {
        return notFound();
      }
      if (stat.isDirectory()) {
        if (!url.pathname.endsWith('/')) {
          // Relative links need the slash, as on any real web server.
          return send(301, { location: url.pathname + '/' + url.search }, '');
        }
        file = path.join(file, 'index.html');
        try {
          stat = await fsp.stat(file);
        } catch {
          return notFound();
        }
      }
      if (!stat.isFile()) return notFound();
      const type = CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
      const body = await fsp.readFile(file);
      return send(200, { 'content-type': type, 'content-length': body.length }, body);
    } catch (err) {
      return send(500, { 'content-type': 'text/plain' }, `server error: ${err.message}\n`);
    }
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve(server));
  });
}

// Starts the Chromium at $CHROMIUM (default /usr/bin/chromium) with `args`, or exits
// with status 2 saying why it could not.
export async function launchChromium(chromium, args) {
  const executablePath = process.env.CHROMIUM || '/usr/bin/chromium';
  try {
    return await chromium.launch({ executablePath, args, timeout: 60_000 });
  } catch (err) {
    console.error(`error: could not start ${executablePath}: ${err.message.split('\n')[0]}`);
    process.exit(2);
  }
}
