// `rulekeeper keys create --scope … --expires … --name …` and `keys list` with them, on SQLite and
// PostgreSQL: what the command accepts and refuses, what it lists, and how the running service holds
// the keys it made to their scope and expiry.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/database.js';
import {
  createKeyWithCli,
  runCli,
  type ScratchDatabase,
  type ScratchKind,
  scratchDatabase,
} from '../helpers/cli.js';
import { startService } from '../helpers/service-process.js';

const kinds: ScratchKind[] = process.env.TEST_POSTGRES_URL ? ['sqlite', 'postgres'] : ['sqlite'];

describe.each(kinds)('keys with a scope, an expiry and a name (%s)', (kind) => {
  let scratch: ScratchDatabase;
  let env: Record<string, string>;
  beforeAll(async () => {
    scratch = await scratchDatabase(kind);
    env = { DATABASE_URL: scratch.url };
  });
  afterAll(async () => {
    await scratch?.drop();
  });

  const listed = async () => JSON.parse((await runCli(['keys', 'list', '--json'], env)).stdout) as KeyRow[];
  type KeyRow = { id: string; userId: string; scope: string; expiresAt: number | null; name: string | null };
  const DAY = 86_400_000;

  it('creates a read key that expires, with a name; lists it; the service holds it to its scope', {
    timeout: 180_000,
  }, async () => {
    const before = Date.now();
    const proxy = await createKeyWithCli(scratch.url, 'acme', 'pat', [
      '--scope',
      'read',
      '--expires',
      '30d',
      '--name',
      'proxy',
    ]);
    const after = Date.now();
    expect(proxy).toMatchObject({ scope: 'read', name: 'proxy' });
    expect(proxy.expiresAt).toBeGreaterThanOrEqual(before + 30 * DAY);
    expect(proxy.expiresAt).toBeLessThanOrEqual(after + 30 * DAY);

    const admin = await runCli(
      [
        'keys',
        'create',
        '--workspace',
        'acme',
        '--user',
        'ada',
        '--scope',
        'admin',
        '--expires',
        '2099-01-01',
        '--name',
        'CI admin',
      ],
      env,
    );
    expect(admin.code, admin.stderr).toBe(0);
    const printed =
      /^key (key_\w+) "CI admin" for user ada \(usr_\w+, admin\) in workspace acme \(ws_\w+\), scope admin, expires 2099-01-01T00:00:00\.000Z:\n(rk_[\w-]{43})\n$/.exec(
        admin.stdout,
      );
    expect(printed, admin.stdout).not.toBeNull();
    const adminKey = printed?.[2] ?? '';

    const lines = (await runCli(['keys', 'list'], env)).stdout.trim().split('\n');
    const expiry = new Date(proxy.expiresAt as number).toISOString();
    expect(lines).toContainEqual(
      expect.stringMatching(
        new RegExp(`^${proxy.keyId}  acme/pat  read  created \\S+  expires ${expiry}  active  "proxy"$`),
      ),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^key_\w+ {2}acme\/ada {2}admin {2}created \S+ {2}expires 2099-01-01T00:00:00\.000Z {2}active {2}"CI admin"$/,
      ),
    );

    const service = await startService({ ...env, RATE_LIMIT_PER_MINUTE: '0', KEY_CACHE_TTL_MS: '0' });
    try {
      const call = async (key: string, method: string, path: string, body?: unknown) => {
        const response = await fetch(`${service.url}${path}`, {
          method,
          headers: { 'x-api-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
          ...(body ? { body: JSON.stringify(body) } : {}),
        });
        return { status: response.status, body: (await response.json()) as Record<string, any> };
      };
      const whoami = await call(proxy.key, 'GET', '/v1/whoami');
      expect(whoami.body.data).toStrictEqual({
        key: {
          id: proxy.keyId,
          name: 'proxy',
          scope: 'read',
          expiresAt: proxy.expiresAt,
          createdAt: expect.any(Number),
          environment: null,
        },
        // pat is the workspace's first user, so its owner; the key still only reads (its scope).
        user: { id: proxy.userId, name: 'pat', role: 'owner' },
        workspace: { id: proxy.workspaceId, name: 'acme' },
      });
      expect((await call(proxy.key, 'GET', '/v1/rules')).status).toBe(200);
      const refused = await call(proxy.key, 'POST', '/v1/groups', { name: 'not allowed' });
      expect(refused).toMatchObject({
        status: 403,
        body: {
          code: 'UNAUTHORIZED_ACTION',
          details: [{ path: '', message: "this key's scope is read: it cannot change rules or groups" }],
        },
      });
      expect((await call(adminKey, 'POST', '/v1/groups', { name: 'allowed' })).status).toBe(201);
      expect((await call(proxy.key, 'GET', '/v1/groups')).body.total).toBe(1);
      // A CI reader: `rulekeeper test` against the server needs nothing more than a read key.
      const dir = mkdtempSync(join(tmpdir(), 'rulekeeper-keys-'));
      try {
        const file = join(dir, 'rules.test.json');
        writeFileSync(
          file,
          JSON.stringify([
            { name: 'untouched', request: { url: 'https://a.example/' }, expect: { cancelled: false } },
          ]),
        );
        const tested = await runCli(['test', file, '--server', service.url], {
          ...env,
          RULEKEEPER_KEY: proxy.key,
        });
        expect({ code: tested.code, stdout: tested.stdout }).toStrictEqual({
          code: 0,
          stdout: expect.stringMatching(/^1 passed, 0 failed$/m),
        });
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    } finally {
      await service.stop();
    }
  });

  // Eight commands that each start a process: minutes on a loaded machine.
  it('refuses a scope, an expiry or a name it cannot use, and creates nothing', {
    timeout: 240_000,
  }, async () => {
    const count = (await listed()).length;
    const create = (...options: string[]) =>
      runCli(['keys', 'create', '--workspace', 'acme', '--user', 'x', ...options], env);
    const refusals: [string[], RegExp][] = [
      [['--scope', 'owner'], /Allowed choices are read, write, admin/],
      [['--expires', '3x'], /expected a duration such as 30d, 12h, 90m or 2w, or an ISO date/],
      [['--expires', '0d'], /is not in the future/],
      [['--expires', '2020-01-01'], /2020-01-01T00:00:00\.000Z is not in the future/],
      [['--expires', '2026-13-45'], /expected a duration/],
      [['--name', '  '], /expected 1 to 256 characters/],
      [['--name', 'two\nlines'], /without control characters/],
      [['--name', 'n'.repeat(257)], /expected 1 to 256 characters/],
    ];
    for (const [options, message] of refusals) {
      const result = await create(...options);
      expect({ code: result.code, stdout: result.stdout }, options.join(' ')).toStrictEqual({
        code: 1,
        stdout: '',
      });
      expect(result.stderr, options.join(' ')).toMatch(message);
    }
    expect(await listed()).toHaveLength(count);
  });

  it('lists an expired key as expired; the service refuses it, saying when it expired', {
    timeout: 180_000,
  }, async () => {
    const issued = await createKeyWithCli(scratch.url, 'acme', 'old', ['--expires', '1h']);
    // Its hour passed: as the clock would have it, written where the service reads it.
    const expiredAt = Date.now() - 1000;
    const database = openDatabase(loadConfig({ DATABASE_URL: scratch.url }));
    try {
      await database.db
        .updateTable('api_keys')
        .set({ expires_at: expiredAt })
        .where('id', '=', issued.keyId)
        .execute();
    } finally {
      await database.close();
    }
    expect((await runCli(['keys', 'list'], env)).stdout).toMatch(
      new RegExp(`^${issued.keyId}  acme/old  write  created \\S+  expires \\S+  expired$`, 'm'),
    );
    const service = await startService({ ...env, RATE_LIMIT_PER_MINUTE: '0' });
    try {
      const response = await fetch(`${service.url}/v1/rules`, { headers: { 'x-api-key': issued.key } });
      expect({ status: response.status, body: await response.json() }).toMatchObject({
        status: 401,
        body: {
          code: 'API_KEY_INVALID',
          details: [{ path: '', message: `this key expired at ${new Date(expiredAt).toISOString()}` }],
        },
      });
    } finally {
      await service.stop();
    }
  });
});
