// A large import killed (SIGKILL) while it runs: after a restart on the same database, either all of
// it is there or nothing of it, with the workspace revision and change log to match; never part.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyWithCli, type ScratchDatabase, type ScratchKind, scratchDatabase } from '../helpers/cli.js';
import { startService } from '../helpers/service-process.js';

const kinds: ScratchKind[] = process.env.TEST_POSTGRES_URL ? ['sqlite', 'postgres'] : ['sqlite'];
const RECORDS = 20_000;

const file = JSON.stringify(
  Array.from({ length: RECORDS }, (_, i) => ({
    objectType: 'rule',
    name: `imported ${i}`,
    ruleType: 'Cancel',
    status: 'Active',
    pairs: [{ source: { key: 'host', operator: 'Equals', value: `ads-${i}.example.com` } }],
  })),
);

describe.each(kinds)('an import killed mid-way (%s)', (kind) => {
  let database: ScratchDatabase;
  beforeAll(async () => {
    database = await scratchDatabase(kind);
  });
  afterAll(() => database?.drop());

  // Kills at several moments of the import: while its body is read and checked, inside its transaction,
  // around its commit (which moment each one hits depends on the machine; each must hold).
  it.each([250, 600, 1000, 1600, 2500])(
    'leaves all of it or nothing of it after a restart (killed at %i ms)',
    async (killAtMs) => {
      const key = (await createKeyWithCli(database.url, `crash-${killAtMs}`, `ops-${killAtMs}`)).key;
      const env = { DATABASE_URL: database.url, RATE_LIMIT_PER_MINUTE: '0' };
      const service = await startService(env);
      const sent = fetch(`${service.url}/v1/import`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: file,
      }).then(
        (response) => response.status,
        () => 'cut off',
      );
      await Promise.race([sent, new Promise((resolve) => setTimeout(resolve, killAtMs))]);
      service.child.kill('SIGKILL');
      expect((await service.exited).signal).toBe('SIGKILL');
      const outcome = await sent;

      const restarted = await startService(env);
      try {
        const rules = await fetch(`${restarted.url}/v1/rules?pageSize=1`, { headers: { 'x-api-key': key } });
        const { total } = (await rules.json()) as { total: number };
        const changes = await fetch(`${restarted.url}/v1/changes?limit=1`, { headers: { 'x-api-key': key } });
        const { latest } = (await changes.json()) as { latest: number };
        console.log(
          `[import crash ${kind} at ${killAtMs} ms] answer: ${outcome}; after restart ${total} rules, revision ${latest}`,
        );
        expect([0, RECORDS]).toContain(total);
        expect(latest).toBe(total === 0 ? 0 : 1);
        if (outcome === 200) expect(total).toBe(RECORDS);
      } finally {
        await restarted.stop();
      }
    },
  );
});
