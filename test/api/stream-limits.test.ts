// Change streams are bounded per key and per instance (429 and 503 with Retry-After, the others
// unharmed), and a stream ends once its key is revoked or expires; on a real listening server, with
// small limits configured.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeysService } from '../../src/modules/keys/keys-service.js';
import { createKeysStore } from '../../src/modules/keys/keys-store.js';
import { openStream, type SseClient } from '../helpers/sse-client.js';
import { buildTestApp, forEachDatabase, type TestApp } from '../helpers/test-app.js';

forEachDatabase((db) => {
  function server(env: Record<string, string>) {
    const state = { t: undefined as unknown as TestApp, base: '' };
    const streams: SseClient[] = [];
    beforeAll(async () => {
      state.t = await buildTestApp({ db, env });
      state.base = await state.t.app.listen({ port: 0, host: '127.0.0.1' });
    });
    afterAll(async () => {
      for (const s of streams) s.close();
      await state.t?.close();
    });
    return {
      get t() {
        return state.t;
      },
      async open(key: string): Promise<SseClient> {
        const client = await openStream(`${state.base}/v1/changes/stream`, { 'x-api-key': key });
        streams.push(client);
        if (client.status === 200)
          await client.waitFor((c) => c.events.length > 0, 10_000, 'the stream to open');
        return client;
      },
      /** The answer to opening a stream that should be refused, with its body (an ordinary JSON answer). */
      async refusal(key: string) {
        const response = await fetch(`${state.base}/v1/changes/stream`, { headers: { 'x-api-key': key } });
        // A stream that opened after all is not read (it would never end): the status says enough.
        if (response.status === 200) await response.body?.cancel();
        const body = response.status === 200 ? undefined : await response.json();
        return { status: response.status, headers: response.headers, body };
      },
    };
  }

  describe('open streams per key and per instance', () => {
    const s = server({ MAX_STREAMS_PER_KEY: '3', MAX_STREAMS: '5' });

    it('refuses a key its next stream past MAX_STREAMS_PER_KEY with 429 and Retry-After, until one closes', async () => {
      const mine = [await s.open(s.t.owner.key), await s.open(s.t.owner.key), await s.open(s.t.owner.key)];
      expect(mine.map((c) => c.status)).toEqual([200, 200, 200]);
      const refused = await s.refusal(s.t.owner.key);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
      expect(refused.body).toEqual({
        success: false,
        message: 'Too many open streams',
        code: 'TOO_MANY_STREAMS',
        details: [{ path: '', message: 'this key has 3 open streams, the most allowed' }],
        requestId: expect.any(String),
      });
      // The streams already open are unharmed, and another key of the workspace has streams of its own.
      const teammate = await s.open(s.t.teammate.key);
      expect(teammate.status).toBe(200);
      expect(mine.every((c) => !c.ended())).toBe(true);
      // A closed stream gives its place back (the server sees the close a moment later).
      mine[0]?.close();
      let again = await s.open(s.t.owner.key);
      for (const deadline = Date.now() + 10_000; again.status === 429 && Date.now() < deadline; ) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        again = await s.open(s.t.owner.key);
      }
      expect(again.status).toBe(200);
      for (const c of [...mine, teammate, again]) c.close();
    });

    it('refuses any key past MAX_STREAMS with 503 and Retry-After; other requests are served', async () => {
      // Three of the owner's, two of the teammate's: the instance holds five (places freed above
      // come back once the server saw those closes).
      const open: SseClient[] = [];
      for (const key of [s.t.owner.key, s.t.owner.key, s.t.owner.key, s.t.teammate.key, s.t.teammate.key]) {
        let client = await s.open(key);
        for (const deadline = Date.now() + 10_000; client.status !== 200 && Date.now() < deadline; ) {
          await new Promise((resolve) => setTimeout(resolve, 50));
          client = await s.open(key);
        }
        expect(client.status).toBe(200);
        open.push(client);
      }
      const refused = await s.refusal(s.t.outsider.key);
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
      expect(refused.body).toMatchObject({
        success: false,
        message: 'Too many streams on this instance',
        code: 'STREAMS_FULL',
      });
      expect((await s.t.call('GET', '/v1/rules', { key: s.t.outsider.key })).status).toBe(200);
      expect(open.every((c) => !c.ended())).toBe(true);
    });
  });

  describe('a revoked or expired key', () => {
    // The key cache of this instance, as another instance's or the CLI's revocation has to wait for it.
    const s = server({ KEY_CACHE_TTL_MS: '1000' });

    it('ends the streams of a key revoked through this instance, and only those', async () => {
      const issued = await s.t.keysService.issue('acme', 'revoked-here');
      const doomed = [await s.open(issued.key), await s.open(issued.key)];
      const other = await s.open(s.t.owner.key);
      await s.t.keysService.revoke(issued.keyId);
      for (const c of doomed)
        await c.waitFor((x) => x.ended(), 10_000, 'the stream of the revoked key to end');
      expect(other.ended()).toBe(false);
      expect((await s.refusal(issued.key)).status).toBe(401);
    });

    it('ends the streams of a key revoked elsewhere (the CLI) once the key cache lets go of it', async () => {
      const issued = await s.t.keysService.issue('acme', 'revoked-elsewhere');
      const doomed = await s.open(issued.key);
      const cli = createKeysService({ db: s.t.database.db, keysStore: createKeysStore(s.t.database.db) });
      await cli.revoke(issued.keyId);
      // KEY_CACHE_TTL_MS is 1 s here; the deadline is generous for a loaded machine.
      await doomed.waitFor((x) => x.ended(), 15_000, 'the stream of the key revoked by the CLI to end');
    });

    it('ends the streams of a key when it expires', async () => {
      const expiresAt = Date.now() + 1500;
      const issued = await s.t.keysService.issue('acme', 'short-lived', {
        scope: 'read',
        expiresAt,
        name: null,
      });
      const doomed = await s.open(issued.key);
      expect(doomed.status).toBe(200);
      await doomed.waitFor((x) => x.ended(), 15_000, 'the stream of the expired key to end');
      expect(Date.now()).toBeGreaterThanOrEqual(expiresAt);
    });
  });
});
