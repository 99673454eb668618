// The operator's `rulekeeper members` command against a running service on the same database: a
// member demoted or removed from the shell loses the power of their keys on the service at once (it
// notices the other process's commit), and the last owner stays an owner.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createKeyWithCli, runCli, type ScratchDatabase, scratchDatabase } from '../helpers/cli.js';
import { type ServiceProcess, startService } from '../helpers/service-process.js';

let database: ScratchDatabase;
let service: ServiceProcess;
let env: Record<string, string>;
beforeAll(async () => {
  database = await scratchDatabase('sqlite');
  env = { DATABASE_URL: database.url };
});
afterAll(async () => {
  await service?.stop();
  await database?.drop();
});

// Each command starts a process: on a loaded two-core machine, several seconds each.
it('lists, demotes, refuses to leave no owner, and removes, each heard by the service', {
  timeout: 180_000,
}, async () => {
  const alice = await createKeyWithCli(database.url, 'acme', 'alice');
  const bob = await createKeyWithCli(database.url, 'acme', 'bob');
  expect([alice.role, bob.role]).toEqual(['owner', 'editor']);
  // The service remembers keys for an hour: only the change it hears can make it forget.
  service = await startService({ ...env, KEY_CACHE_TTL_MS: '3600000' });
  const write = async () =>
    (
      await fetch(`${service.url}/v1/groups`, {
        method: 'POST',
        headers: { 'x-api-key': bob.key, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'by bob' }),
      })
    ).status;
  /** The status of bob's write once the service has heard of the change (bounded wait, no sleep). */
  const settled = async (expected: number) => {
    let status = await write();
    for (const deadline = Date.now() + 10_000; status !== expected && Date.now() < deadline; )
      status = await write();
    return status;
  };
  expect(await write()).toBe(201);

  const listed = await runCli(['members', 'list', '--workspace', 'acme', '--json'], env);
  expect(JSON.parse(listed.stdout).map((m: { name: string; role: string }) => [m.name, m.role])).toEqual([
    ['alice', 'owner'],
    ['bob', 'editor'],
  ]);

  const demoted = await runCli(
    ['members', 'set-role', '--workspace', 'acme', '--user', 'bob', '--role', 'viewer'],
    env,
  );
  expect(demoted).toMatchObject({ code: 0, stdout: 'bob is now viewer of acme\n' });
  expect(await settled(403)).toBe(403);

  const lastOwner = await runCli(
    ['members', 'set-role', '--workspace', 'acme', '--user', 'alice', '--role', 'admin'],
    env,
  );
  expect(lastOwner).toMatchObject({ code: 1, stderr: 'rulekeeper: A workspace keeps at least one owner\n' });

  const removed = await runCli(['members', 'remove', '--workspace', 'acme', '--user', 'bob'], env);
  expect(removed).toMatchObject({ code: 0, stdout: 'bob is no longer a member of acme\n' });
  expect(await settled(401)).toBe(401);
  const unknown = await runCli(['members', 'remove', '--workspace', 'acme', '--user', 'nobody'], env);
  expect(unknown).toMatchObject({ code: 2, stderr: 'rulekeeper: no user named "nobody"\n' });
});
