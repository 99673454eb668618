// The operator's `rulekeeper keys` command on a fresh database: create, list (never the key itself),
// revoke; and a key revoked by the command is refused by the running service: on the very next request
// with KEY_CACHE_TTL_MS=0, within KEY_CACHE_TTL_MS otherwise. Scopes, expiry and names are in
// keys-cli-scopes.test.ts.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createKeyWithCli, runCli, type ScratchDatabase, scratchDatabase } from '../helpers/cli.js';
import { startService } from '../helpers/service-process.js';

let database: ScratchDatabase;
let env: Record<string, string>;
beforeAll(async () => {
  database = await scratchDatabase('sqlite');
  env = { DATABASE_URL: database.url };
});
afterAll(async () => {
  await database?.drop();
});

it('lists nothing on a new, empty database (migrating it first)', async () => {
  const empty = await scratchDatabase('sqlite');
  try {
    expect(await runCli(['keys', 'list', '--json'], { DATABASE_URL: empty.url })).toStrictEqual({
      code: 0,
      stdout: '[]\n',
      stderr: '',
    });
  } finally {
    await empty.drop();
  }
});

// Each command starts a process: on a loaded two-core machine, several seconds each.
it('creates, lists without the key, and revokes at once against the running service', {
  timeout: 180_000,
}, async () => {
  const created = await runCli(['keys', 'create', '--workspace', 'acme', '--user', 'alice'], env);
  expect(created.code, created.stderr).toBe(0);
  const printed =
    /^key (key_\w+) for user alice \((usr_\w+), owner\) in workspace acme \((ws_\w+)\), scope write, no expiry:\n(rk_[\w-]{43})\n$/.exec(
      created.stdout,
    );
  expect(printed, created.stdout).not.toBeNull();
  const alice = {
    keyId: printed?.[1],
    userId: printed?.[2],
    workspaceId: printed?.[3],
    key: printed?.[4] ?? '',
  };
  const bob = await createKeyWithCli(database.url, 'acme', 'bob');
  expect(bob).toStrictEqual({
    key: expect.stringMatching(/^rk_[\w-]{43}$/),
    keyId: expect.stringMatching(/^key_\w+$/),
    workspaceId: alice.workspaceId,
    userId: expect.stringMatching(/^usr_/),
    role: 'editor',
    scope: 'write',
    expiresAt: null,
    name: null,
    environment: null,
  });
  const secrets = [alice.key, bob.key].flatMap((key) => [key, key.slice(3)]);

  const listed = await runCli(['keys', 'list'], env);
  expect(listed.code).toBe(0);
  expect(listed.stdout.trim().split('\n')).toStrictEqual([
    expect.stringMatching(new RegExp(`^${alice.keyId}  acme/alice  write  created \\S+  no expiry  active$`)),
    expect.stringMatching(/^key_\w+ {2}acme\/bob {2}write {2}created \S+ {2}no expiry {2}active$/),
  ]);
  const listedJson = await runCli(['keys', 'list', '--json'], env);
  const rows = JSON.parse(listedJson.stdout) as Record<string, unknown>[];
  expect(rows.map((row) => Object.keys(row).sort())).toStrictEqual(
    Array(2).fill([
      'createdAt',
      'environment',
      'expiresAt',
      'id',
      'name',
      'revokedAt',
      'scope',
      'user',
      'userId',
      'workspace',
      'workspaceId',
    ]),
  );
  for (const secret of secrets)
    expect(listed.stdout + listedJson.stdout + listed.stderr).not.toContain(secret);
  const bobKeyId = String(rows.find((row) => row.userId === bob.userId)?.id);

  const service = await startService({
    ...env,
    LOG_LEVEL: 'trace',
    RATE_LIMIT_PER_MINUTE: '0',
    KEY_CACHE_TTL_MS: '0',
  });
  try {
    const get = (key: string) => fetch(`${service.url}/v1/rules`, { headers: { 'x-api-key': key } });
    expect((await get(bob.key)).status).toBe(200);
    const revoked = await runCli(['keys', 'revoke', bobKeyId], env);
    expect(revoked).toStrictEqual({ code: 0, stdout: `revoked ${bobKeyId}\n`, stderr: '' });
    const refused = await get(bob.key);
    expect({
      status: refused.status,
      message: ((await refused.json()) as { message: string }).message,
    }).toStrictEqual({
      status: 401,
      message: 'Invalid API key',
    });
    expect((await get(alice.key)).status).toBe(200);
    const again = await runCli(['keys', 'revoke', bobKeyId], env);
    expect(again).toStrictEqual({ code: 1, stdout: '', stderr: `no active key with id ${bobKeyId}\n` });
    expect((await runCli(['keys', 'list'], env)).stdout).toMatch(
      new RegExp(`${bobKeyId} {2}acme/bob .* revoked \\S+`),
    );
    expect(service.output()).toMatch(/incoming request/); // the trace log was captured
    for (const secret of secrets) expect(service.output()).not.toContain(secret);
  } finally {
    await service.stop();
  }
});

it('binds a key to an environment of its workspace, and refuses one the workspace does not have', {
  timeout: 180_000,
}, async () => {
  const bound = await createKeyWithCli(database.url, 'acme', 'carl', ['--environment', 'default']);
  expect(bound).toMatchObject({ environment: 'default', scope: 'write' });
  const listed = await runCli(['keys', 'list'], env);
  expect(listed.stdout).toMatch(new RegExp(`^${bound.keyId} .* environment default$`, 'm'));
  const before = (await runCli(['keys', 'list', '--json'], env)).stdout;
  const unknown = await runCli(
    ['keys', 'create', '--workspace', 'acme', '--user', 'carl', '--environment', 'staging'],
    env,
  );
  expect(unknown).toMatchObject({ code: 1, stdout: '' });
  expect(unknown.stderr).toContain('workspace "acme" has no environment "staging"');
  const malformed = await runCli(
    ['keys', 'create', '--workspace', 'acme', '--user', 'carl', '--environment', 'not a name'],
    env,
  );
  expect(malformed.code).toBe(1);
  expect(malformed.stderr).toContain("option '--environment <name>' argument 'not a name' is invalid");
  // Nothing made by either refusal.
  expect((await runCli(['keys', 'list', '--json'], env)).stdout).toBe(before);
});

it('a key cached by the running service is refused within KEY_CACHE_TTL_MS of its revocation', {
  timeout: 180_000,
}, async () => {
  const ttlMs = 1000;
  const carol = await createKeyWithCli(database.url, 'acme', 'carol');
  const rows = JSON.parse((await runCli(['keys', 'list', '--json'], env)).stdout) as Record<
    string,
    unknown
  >[];
  const carolKeyId = String(rows.find((row) => row.userId === carol.userId)?.id);
  const service = await startService({ ...env, RATE_LIMIT_PER_MINUTE: '0', KEY_CACHE_TTL_MS: String(ttlMs) });
  try {
    const status = async () =>
      (await fetch(`${service.url}/v1/rules`, { headers: { 'x-api-key': carol.key } })).status;
    expect(await status()).toBe(200); // now cached
    expect((await runCli(['keys', 'revoke', carolKeyId], env)).code).toBe(0);
    const revokedAt = performance.now();
    // Accepted from the cache for a while at most; then refused, and for good.
    let refusedAfterMs: number | undefined;
    while (refusedAfterMs === undefined && performance.now() - revokedAt < ttlMs + 5000) {
      if ((await status()) === 401) refusedAfterMs = performance.now() - revokedAt;
      else await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(refusedAfterMs).toBeLessThanOrEqual(ttlMs + 500);
    expect(await status()).toBe(401);
  } finally {
    await service.stop();
  }
});
