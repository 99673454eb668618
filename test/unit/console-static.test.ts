// The console's files as the service serves them at `/`: the page always revalidated, hashed assets
// cached for good, a CSP without inline script or style, and a plain answer when it is not built.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { consolePlugin } from '../../src/plugins/console.js';

const dir = mkdtempSync(join(tmpdir(), 'rulekeeper-console-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function serve(consoleDir: string) {
  const app = Fastify();
  consolePlugin(app, consoleDir);
  await app.ready();
  return app;
}

describe('the console at /', () => {
  mkdirSync(join(dir, 'built', 'assets'), { recursive: true });
  writeFileSync(
    join(dir, 'built', 'index.html'),
    '<!doctype html><script type="module" src="/assets/index-abc.js"></script>',
  );
  writeFileSync(join(dir, 'built', 'assets', 'index-abc.js'), 'console.log(1)');
  writeFileSync(join(dir, 'built', 'assets', 'index-abc.css'), 'body{}');

  it('serves the page, revalidated on every load, under a strict CSP', async () => {
    const app = await serve(join(dir, 'built'));
    const page = await app.inject({ method: 'GET', url: '/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(page.headers['cache-control']).toBe('no-cache');
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe');
    expect(page.body).toContain('/assets/index-abc.js');
  });

  it('serves hashed assets with their type, cached for good, and nothing else', async () => {
    const app = await serve(join(dir, 'built'));
    const script = await app.inject({ method: 'GET', url: '/assets/index-abc.js' });
    expect(script.statusCode).toBe(200);
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(script.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(script.body).toBe('console.log(1)');
    expect((await app.inject({ method: 'GET', url: '/assets/index-abc.css' })).headers['content-type']).toBe(
      'text/css; charset=utf-8',
    );
    for (const url of [
      '/assets/missing.js',
      '/assets/..%2Findex.html',
      '/assets/%2e%2e%2f%2e%2e%2fpackage.json',
    ]) {
      expect((await app.inject({ method: 'GET', url })).statusCode, url).toBe(404);
    }
  });

  it('says how to build it when it is not built, instead of a blank page', async () => {
    const app = await serve(join(dir, 'never-built'));
    const page = await app.inject({ method: 'GET', url: '/' });
    expect(page.statusCode).toBe(503);
    expect(page.body).toContain('npm run build');
  });
});
