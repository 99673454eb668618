// The workspace revision as reads observe it (ChangesService.observe): read once for all the requests
// that ask in one turn of the event loop, after each of them asked, and never reused once anyone committed.
import { describe, expect, it } from 'vitest';
import { createChangesService } from '../../src/modules/changes/changes-service.js';
import type { ChangesStore } from '../../src/modules/changes/changes-store.js';

function service(dataVersion: (() => number) | undefined) {
  const reads: string[] = [];
  const revisions = new Map([
    ['ws_a', 5],
    ['ws_b', 9],
  ]);
  const store = {
    revision: async (workspaceId: string) => {
      reads.push(workspaceId);
      return { revision: revisions.get(workspaceId) ?? 0, swept_revision: 0 };
    },
  } as unknown as ChangesStore;
  const changes = createChangesService({ store, dataVersion, signals: { announce: async () => {} } });
  return { changes, reads, revisions };
}

describe('ChangesService.observe', () => {
  it('on SQLite, asks data_version once per turn, after every request of the turn asked', async () => {
    let version = 1;
    let asked = 0;
    const { changes, reads, revisions } = service(() => {
      asked++;
      return version;
    });
    const turn = [changes.observe('ws_a'), changes.observe('ws_a'), changes.observe('ws_b')];
    // A commit after the requests arrived and before the turn ends is seen by all of them.
    version = 2;
    revisions.set('ws_a', 6);
    expect(await Promise.all(turn)).toStrictEqual([
      { revision: 6, version: 2 },
      { revision: 6, version: 2 },
      { revision: 9, version: 2 },
    ]);
    expect([asked, reads]).toStrictEqual([1, ['ws_a', 'ws_b']]);
    // The next turn asks again; while nobody committed, the revisions read are reused.
    expect(await changes.observe('ws_a')).toStrictEqual({ revision: 6, version: 2 });
    expect([asked, reads.length]).toStrictEqual([2, 2]);
    // Any commit (by any connection) moves data_version: the revision is read again.
    version = 3;
    revisions.set('ws_a', 7);
    expect(await changes.observe('ws_a')).toStrictEqual({ revision: 7, version: 3 });
    expect(reads).toStrictEqual(['ws_a', 'ws_b', 'ws_a']);
  });

  it('elsewhere, reads each workspace once per turn, and again in the next', async () => {
    const { changes, reads, revisions } = service(undefined);
    const turn = [changes.observe('ws_a'), changes.observe('ws_a')];
    expect(await Promise.all(turn)).toStrictEqual([
      { revision: 5, version: 5 },
      { revision: 5, version: 5 },
    ]);
    revisions.set('ws_a', 6);
    expect(await changes.revision('ws_a')).toBe(6);
    expect(reads).toStrictEqual(['ws_a', 'ws_a']);
  });
});
