// API keys: never logged, never in a response, stored only as SHA-256 hashes, looked up by hash,
// refused the moment they are revoked.
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { Writable } from 'node:stream';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, forEachDatabase, type TestApp } from '../helpers/test-app.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const cancel = {
  name: 'k',
  ruleType: 'Cancel',
  pairs: [{ source: { key: 'host', operator: 'Equals', value: 'a' } }],
};

forEachDatabase((db) => {
  let t: TestApp & { config: { databaseUrl: string } };
  let log = '';
  const stranger = `rk_${randomBytes(32).toString('base64url')}`;
  const replies: string[] = [];

  beforeAll(async () => {
    const stream = new Writable({
      write(chunk, _encoding, done) {
        log += chunk.toString();
        done();
      },
    });
    t = await buildTestApp({ db, logger: { level: 'trace', stream } });
    // A little of everything, with each kind of key: successes, client errors, refusals.
    const exchanges: [string, string, string | null, unknown?][] = [
      ['POST', '/v1/rules', t.owner.key, cancel],
      ['GET', '/v1/rules', t.teammate.key],
      ['PUT', '/v1/rules/Cancel_zzzzz', t.outsider.key, { name: 'x' }],
      ['POST', '/v1/rules', t.owner.key, { name: 'bad' }],
      ['GET', '/v1/groups/not-a-group', t.owner.key],
      ['GET', '/v1/nowhere', t.owner.key],
      ['PATCH', '/v1/rules', t.owner.key],
      ['GET', '/v1/rules', stranger],
      ['GET', '/v1/rules', `${t.owner.key}x`],
      ['GET', '/v1/rules', null],
    ];
    for (const [method, url, key, body] of exchanges) {
      const reply = await t.app.inject({
        method: method as 'GET',
        url,
        headers: { ...(key ? { 'x-api-key': key } : {}), 'content-type': 'application/json' },
        ...(body ? { payload: JSON.stringify(body) } : {}),
      });
      replies.push(JSON.stringify({ headers: reply.headers, body: reply.body }));
    }
  });
  afterAll(async () => {
    await t?.close();
  });

  const keys = () => [t.owner.key, t.teammate.key, t.outsider.key, stranger];

  it('never writes a key (or its hash) to the log, even at trace level', () => {
    expect(log).toMatch(/incoming request/); // the log did capture the requests
    expect(log.split('\n').filter((line) => line.includes('"reqId"')).length).toBeGreaterThan(10);
    for (const key of keys()) {
      expect(log).not.toContain(key);
      expect(log).not.toContain(key.slice(3)); // without its prefix
      expect(log).not.toContain(sha256(key));
    }
  });

  it('never answers with a key, in a body or a header', () => {
    expect(replies).toHaveLength(10);
    for (const reply of replies) for (const key of keys()) expect(reply).not.toContain(key.slice(3));
  });

  it('stores only SHA-256 hashes of keys (hex), and no column anywhere holds a key', async () => {
    const rows = await t.database.db.selectFrom('api_keys').selectAll().execute();
    expect(rows.length).toBeGreaterThanOrEqual(3);
    const hashes = rows.map((row) => row.key_hash);
    for (const hash of hashes) expect(hash).toMatch(/^[0-9a-f]{64}$/);
    for (const key of [t.owner.key, t.teammate.key, t.outsider.key]) expect(hashes).toContain(sha256(key));
    const everything = JSON.stringify([
      rows,
      await t.database.db.selectFrom('users').selectAll().execute(),
      await t.database.db.selectFrom('workspaces').selectAll().execute(),
      await t.database.db.selectFrom('rules').selectAll().execute(),
      await t.database.db.selectFrom('idempotency_keys').selectAll().execute(),
    ]);
    for (const key of keys()) expect(everything).not.toContain(key.slice(3));
  });

  it.runIf(db === 'sqlite')('leaves no key anywhere in the database files (WAL included)', () => {
    const folder = dirname(t.config.databaseUrl.slice('sqlite:'.length));
    const bytes = readdirSync(folder).map((file) => readFileSync(`${folder}/${file}`));
    expect(bytes.length).toBeGreaterThan(0);
    expect(bytes.some((content) => content.includes(sha256(t.owner.key)))).toBe(true); // the files were read
    for (const content of bytes) for (const key of keys()) expect(content.includes(key.slice(3))).toBe(false);
  });

  it('issues keys of 256 random bits with the rk_ prefix, all different', async () => {
    const issued = await Promise.all(
      Array.from({ length: 20 }, (_, i) => t.keysService.issue('acme', `u${i}`)),
    );
    for (const { key } of issued) {
      expect(key).toMatch(/^rk_[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(key.slice(3), 'base64url')).toHaveLength(32);
    }
    expect(new Set(issued.map((i) => i.key)).size).toBe(20);
  });

  it('refuses a revoked key at once', async () => {
    const issued = await t.keysService.issue('acme', 'erin');
    const get = () => t.call('GET', '/v1/rules', { key: issued.key });
    expect((await get()).status).toBe(200);
    expect(await t.keysService.revoke(issued.keyId)).toBe(true);
    const refused = await get();
    expect({ status: refused.status, message: refused.body.message }).toStrictEqual({
      status: 401,
      message: 'Invalid API key',
    });
  });

  describe('looks keys up by their hash, never by comparing the secret', () => {
    it('accepts a key the service never saw, given only its hash in the table', async () => {
      const key = `rk_${randomBytes(32).toString('base64url')}`;
      const owner = await t.database.db
        .selectFrom('api_keys')
        .selectAll()
        .where('key_hash', '=', sha256(t.owner.key))
        .executeTakeFirstOrThrow();
      await t.database.db
        .insertInto('api_keys')
        .values({ ...owner, id: `key_${randomBytes(6).toString('hex')}`, key_hash: sha256(key) })
        .execute();
      expect((await t.call('GET', '/v1/rules', { key })).status).toBe(200);
    });

    it('refuses near misses of a valid key', async () => {
      const key = t.owner.key;
      const flip = (c: string) => (c === 'A' ? 'B' : 'A');
      const nearMisses = [
        key.slice(0, -1) + flip(key.slice(-1)),
        `rk_${flip(key.charAt(3))}${key.slice(4)}`,
        `${key}A`,
        key.slice(0, -1),
        key.toUpperCase(),
        ` ${key}`,
      ];
      for (const nearMiss of nearMisses)
        expect((await t.call('GET', '/v1/rules', { key: nearMiss })).status, nearMiss).toBe(401);
    });

    it.runIf(db === 'sqlite')('finds the hash through the unique index (one equality probe)', async () => {
      const plan = await sql<{ detail: string }>`explain query plan
        select id from api_keys where key_hash = ${sha256('x')} and revoked_at is null`.execute(
        t.database.db,
      );
      expect(plan.rows.map((row) => row.detail).join(' | ')).toMatch(
        /SEARCH api_keys USING INDEX .*\(key_hash=\?\)/,
      );
    });

    it('takes as long for a key sharing 40 characters with a valid one as for a random key (smoke)', async () => {
      const time = async (key: string) => {
        const start = process.hrtime.bigint();
        await t.app.inject({ method: 'GET', url: '/v1/groups', headers: { 'x-api-key': key } });
        return Number(process.hrtime.bigint() - start);
      };
      const close: number[] = [];
      const far: number[] = [];
      for (let i = 0; i < 300; i += 1) {
        close.push(await time(`${t.owner.key.slice(0, 43)}${randomBytes(3).toString('hex')}`));
        far.push(await time(`rk_${randomBytes(32).toString('base64url')}`));
      }
      const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1] as number;
      const ratio = median(close) / median(far);
      console.log(`[keys ${db}] median auth time, near key / random key: ${ratio.toFixed(2)}`);
      expect(ratio).toBeGreaterThan(0.5);
      expect(ratio).toBeLessThan(2);
    });
  });
});
