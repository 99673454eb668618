// Crash safety: the real service under concurrent creates and updates is killed (SIGKILL) at a random
// moment, restarted on the same database, and must hold every acknowledged write intact and nothing
// half-written. Short by default; RULEKEEPER_LONG_TESTS=1 kills 20 times. Replay with CRASH_SEED.
import { setTimeout as delay } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RULE_TYPES } from '../../src/model/rule-types/index.js';
import { createKeyWithCli, type ScratchDatabase, type ScratchKind, scratchDatabase } from '../helpers/cli.js';
import {
  acknowledge,
  type CrashCycle,
  crashProblems,
  newCycle,
  type Rule,
  taggedWrite,
} from '../helpers/crash-model.js';
import { startService } from '../helpers/service-process.js';
import { byMode, randomFrom, seedFor } from '../helpers/test-modes.js';

const KILLS = byMode(3, 20);
const IN_FLIGHT = 6;
const seed = seedFor('CRASH_SEED', 'crash');

async function listAll(base: string, key: string): Promise<Rule[]> {
  const rules: Rule[] = [];
  let offset: number | null = 0;
  while (offset !== null) {
    const response = await fetch(`${base}/v1/rules?pageSize=1000&offset=${offset}`, {
      headers: { 'x-api-key': key },
    });
    const body = (await response.json()) as { data: Rule[]; total: number; nextOffset: number | null };
    expect(response.status, JSON.stringify(body)).toBe(200);
    rules.push(...body.data);
    offset = body.nextOffset;
  }
  return rules;
}

interface Load {
  killed: boolean;
  inFlight: number;
  acks: number;
  /** Called after each answer (the test waits for a number of acknowledged writes before it kills). */
  onAnswer?: () => void;
  /** Anything but a 2xx before the kill, or a network error before the kill: the run fails with these. */
  unexpected: string[];
}

/** One writer: creates and full updates (name, description, status, pairs), one at a time, until the kill. */
async function writer(
  base: string,
  key: string,
  cycle: CrashCycle,
  load: Load,
  tagPrefix: string,
  r: ReturnType<typeof randomFrom>,
) {
  for (let n = 0; !load.killed; n += 1) {
    const tag = `${tagPrefix}n${n}`;
    const targets = [...cycle.acked.values()];
    const target = targets.length > 0 && r.next() < 0.5 ? targets[r.int(0, targets.length - 1)] : undefined;
    const ruleType =
      (target?.ruleType as (typeof RULE_TYPES)[number]) ?? RULE_TYPES[r.int(0, RULE_TYPES.length - 1)];
    const body = taggedWrite(tag, ruleType, r.int(0, 5), r.next() < 0.5);
    cycle.sent.set(tag, { kind: target ? 'update' : 'create', id: target?.id, body, acknowledged: false });
    load.inFlight += 1;
    try {
      const response = await fetch(`${base}/v1/rules${target ? `/${target.id}` : ''}`, {
        method: target ? 'PUT' : 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const text = await response.text();
      if (response.status !== (target ? 200 : 201)) {
        load.unexpected.push(`${tag}: ${response.status} ${text}`);
        continue;
      }
      acknowledge(cycle, tag, (JSON.parse(text) as { data: Rule }).data);
      load.acks += 1;
    } catch (error) {
      if (!load.killed) load.unexpected.push(`${tag}: ${String(error)} before the kill`);
      return;
    } finally {
      load.inFlight -= 1;
      load.onAnswer?.();
    }
  }
}

function crashSuite(kind: ScratchKind) {
  let database: ScratchDatabase;
  let key: string;
  beforeAll(async () => {
    database = await scratchDatabase(kind);
    key = (await createKeyWithCli(database.url, 'w', 'u')).key;
  });
  afterAll(async () => {
    await database?.drop();
  });

  it(`keeps every acknowledged write through ${KILLS} kills at random moments`, {
    timeout: 60_000 + KILLS * 15_000,
  }, async () => {
    const r = randomFrom(seed + (kind === 'postgres' ? 1 : 0));
    const env = { DATABASE_URL: database.url, RATE_LIMIT_PER_MINUTE: '0' };
    let baseline = new Map<string, Rule>();
    let service = await startService(env);
    const figures = { kills: 0, acks: 0, checked: 0, landedUnacked: 0, inFlightAtKill: 0 };
    try {
      for (let kill = 1; kill <= KILLS; kill += 1) {
        const cycle = newCycle(baseline);
        const load: Load = { killed: false, inFlight: 0, acks: 0, unexpected: [] };
        const writers = Array.from({ length: IN_FLIGHT }, (_, w) =>
          writer(service.url, key, cycle, load, `k${kill}w${w}`, randomFrom(r.int(0, 2 ** 30))),
        );
        // The moment is drawn in writes acknowledged, then a few milliseconds more, not in time alone:
        // on a loaded machine two seconds may see no write answered, and such a kill proves nothing.
        const acksBeforeKill = r.int(1, 40);
        await new Promise<void>((resolve) => {
          // An unexpected answer ends the wait too: the run fails with it below.
          load.onAnswer = () => {
            if (load.acks >= acksBeforeKill || load.unexpected.length > 0) resolve();
          };
        });
        await delay(r.int(0, 100));
        load.killed = true;
        figures.inFlightAtKill += load.inFlight;
        service.child.kill('SIGKILL');
        expect((await service.exited).signal).toBe('SIGKILL');
        await Promise.all(writers);
        expect(load.unexpected).toStrictEqual([]);
        figures.kills += 1;

        service = await startService(env);
        const stored = await listAll(service.url, key);
        expect(crashProblems(cycle, stored)).toStrictEqual([]);
        const unacked = [...cycle.sent.values()].filter((s) => !s.acknowledged).length;
        figures.acks += load.acks;
        figures.checked += cycle.acked.size;
        figures.landedUnacked += stored.filter((rule) => {
          const sent = cycle.sent.get(String(rule.name).replace(/^crash /, ''));
          return sent && !sent.acknowledged;
        }).length;
        console.log(
          `[crash ${kind}] kill ${kill}: ${load.acks} writes acknowledged, ${unacked} not; ` +
            `${stored.length} rules read back whole`,
        );
        baseline = new Map(stored.map((rule) => [rule.id, rule]));
      }
    } finally {
      await service.stop('SIGTERM');
    }
    console.log(
      `[crash ${kind}] ${figures.kills} kills survived (seed ${seed}); ${figures.acks} acknowledged writes, ` +
        `${figures.checked} checks of a rule against its last acknowledged state; ${figures.inFlightAtKill} requests in flight at the kills, ` +
        `${figures.landedUnacked} unacknowledged writes found landed whole`,
    );
    expect(figures.acks).toBeGreaterThan(0);
  });
}

describe('sqlite', () => crashSuite('sqlite'));
describe.skipIf(!process.env.TEST_POSTGRES_URL)(
  process.env.TEST_POSTGRES_URL ? 'postgres' : 'postgres (skipped: set TEST_POSTGRES_URL to run)',
  () => crashSuite('postgres'),
);

describe('the crash check itself catches', () => {
  const write = taggedWrite('t1', 'Cancel', 0, true);
  const stored: Rule = {
    id: 'Cancel_abcde',
    ...write,
    groupId: '',
    isFavourite: false,
    createdBy: 'usr_1',
    creationDate: 1000,
    lastModifiedBy: 'usr_1',
    modificationDate: 1000,
    currentOwner: 'usr_1',
    objectType: 'rule',
  };
  const acknowledgedCycle = () => {
    const cycle = newCycle(new Map());
    cycle.sent.set('t1', { kind: 'create', body: write, acknowledged: false });
    acknowledge(cycle, 't1', stored);
    return cycle;
  };

  it('nothing when the acknowledged rule is there intact', () => {
    expect(crashProblems(acknowledgedCycle(), [stored])).toStrictEqual([]);
  });
  it('an acknowledged rule that is missing', () => {
    expect(crashProblems(acknowledgedCycle(), [])).toStrictEqual([
      'rule Cancel_abcde: acknowledged, now missing',
    ]);
  });
  it('an acknowledged update rolled back', () => {
    const cycle = acknowledgedCycle();
    acknowledge(cycle, 't2', { ...stored, modificationDate: 2000, status: 'Inactive' });
    expect(crashProblems(cycle, [stored]).join()).toMatch(/acknowledged write lost/);
  });
  it('a rule mixing two writes (half-written)', () => {
    const other = taggedWrite('t2', 'Cancel', 1, false);
    const cycle = acknowledgedCycle();
    cycle.sent.set('t2', { kind: 'update', id: stored.id, body: other, acknowledged: false });
    const mixed = { ...stored, name: other.name, modificationDate: 2000 };
    expect(crashProblems(cycle, [mixed]).join()).toMatch(/matches no request sent/);
  });
  it('a rule with invalid or missing fields', () => {
    const broken = { ...stored, pairs: [{ source: { key: 'nope' } }], creationDate: undefined };
    const problems = crashProblems(acknowledgedCycle(), [broken as unknown as Rule]).join();
    expect(problems).toMatch(/creationDate: Expected/);
    expect(problems).toMatch(/pair invalid at \/pairs\/0/);
  });
  it('a rule with a field of the wrong form, or one too many', () => {
    const broken = { ...stored, groupId: 7, extra: true };
    const problems = crashProblems(acknowledgedCycle(), [broken as unknown as Rule]).join();
    expect(problems).toMatch(/groupId: Expected string/);
    expect(problems).toMatch(/extra: Unexpected property/);
  });
  it('a rule nobody created', () => {
    expect(crashProblems(newCycle(new Map()), [stored]).join()).toMatch(/matches no request sent/);
  });
});
