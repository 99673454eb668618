// The web console at `/`: the files `npm run build` writes to dist/console (console/ is its source),
// read into memory once, since there are a handful and they never change while the process runs.
// The API stays under /v1 and the docs under /docs; nothing here needs a key (the page asks for one).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { AppError } from '../errors.js';

/** dist/console of the package, whether this file runs from src/plugins (tests) or dist/plugins. */
const CONSOLE_DIR = fileURLToPath(new URL('../../dist/console/', import.meta.url));

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

// Stricter than the API's: the console has no inline script or style, is never framed, and talks
// only to this origin.
const CONSOLE_CSP = [
  "default-src 'self'",
  "base-uri 'none'",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "img-src 'self' data:",
  "object-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
].join(';');

interface StaticFile {
  body: Buffer;
  type: string;
}

function readAssets(dir: string): Map<string, StaticFile> {
  const files = new Map<string, StaticFile>();
  if (!existsSync(dir)) return files;
  for (const name of readdirSync(dir)) {
    const type = TYPES[extname(name)];
    if (type) files.set(name, { body: readFileSync(join(dir, name)), type });
  }
  return files;
}

function send(reply: FastifyReply, file: StaticFile, cacheControl: string) {
  return reply
    .header('content-type', file.type)
    .header('cache-control', cacheControl)
    .header('content-security-policy', CONSOLE_CSP)
    .send(file.body);
}

export function consolePlugin(app: FastifyInstance, dir = CONSOLE_DIR): void {
  const indexPath = join(dir, 'index.html');
  const index = existsSync(indexPath)
    ? { body: readFileSync(indexPath), type: TYPES['.html'] as string }
    : undefined;
  const assets = readAssets(join(dir, 'assets'));

  app.get('/', { schema: { hide: true } }, async (_request, reply) => {
    if (!index) {
      return reply
        .code(503)
        .type('text/plain; charset=utf-8')
        .send('The console is not built: run `npm run build`, then start the service again.\n');
    }
    // Always revalidated, so a new build's asset names are picked up on the next load.
    return send(reply, index, 'no-cache');
  });
  app.get<{ Params: { name: string } }>(
    '/assets/:name',
    { schema: { hide: true } },
    async (request, reply) => {
      const file = assets.get(request.params.name);
      // A 404 of the API's form (not found's handler, which would call a GET-only route a 405).
      if (!file) throw new AppError('ROUTE_NOT_FOUND');
      // Asset names carry a hash of their content: a name never changes meaning.
      return send(reply, file, 'public, max-age=31536000, immutable');
    },
  );
}
