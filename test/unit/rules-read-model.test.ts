// The rules' read model on both databases: what it keeps is answered while the version it was read at
// holds, and read again once the version moves; another workspace's rule is answered but never kept.
import { expect, it } from 'vitest';
import { createRulesReadModel } from '../../src/modules/rules/rules-read-model.js';
import { useRulesDatabase } from '../helpers/rules-database.js';
import { forEachDatabase } from '../helpers/test-app.js';

const body = (name: string) => ({
  name,
  ruleType: 'Cancel',
  pairs: [{ source: { key: 'Url', operator: 'Contains', value: name } }],
});

forEachDatabase((kind) => {
  const rules = useRulesDatabase(kind);

  it('keeps a page while its version holds, and reads it again once it moves', async () => {
    const { rulesStore, alice, insertRule } = rules();
    const model = createRulesReadModel(rulesStore);
    await insertRule(alice, body('page one'), 'Cancel_p0001', 1000);
    const filter = { workspaceId: alice.workspaceId };
    const first = await model.page(filter, alice.ownerUserId, 0, 10, 1);
    expect(first.total).toBe(1);
    expect(JSON.parse(first.items[0] as string)).toMatchObject({ id: 'Cancel_p0001', name: 'page one' });

    await insertRule(alice, body('page two'), 'Cancel_p0002', 2000);
    // The same version: the page kept (the same object, so the reply layer's bytes of it too).
    expect(await model.page(filter, alice.ownerUserId, 0, 10, 1)).toBe(first);
    const moved = await model.page(filter, alice.ownerUserId, 0, 10, 2);
    expect(moved.total).toBe(2);
    expect(moved.items.map((item) => JSON.parse(item).id)).toEqual(['Cancel_p0001', 'Cancel_p0002']);
    // Another page of the same version is another entry.
    const second = await model.page(filter, alice.ownerUserId, 1, 1, 2);
    expect(second).toMatchObject({ total: 2, offset: 1 });
    expect(second.items).toHaveLength(1);
    // Without a version nothing is kept.
    const unkept = await model.page(filter, alice.ownerUserId, 0, 10, undefined);
    expect(unkept).not.toBe(await model.page(filter, alice.ownerUserId, 0, 10, undefined));
  });

  it("keeps the caller's own rule, and reads another workspace's each time", async () => {
    const { rulesStore, database, alice, carol, insertRule } = rules();
    const model = createRulesReadModel(rulesStore);
    await insertRule(alice, body('mine'), 'Cancel_m0001', 3000);
    await insertRule(carol, body('hers'), 'Cancel_h0001', 3000);

    const mine = await model.rule(alice.workspaceId, 'Cancel_m0001', alice.ownerUserId, 7);
    expect(mine?.workspace_id).toBe(alice.workspaceId);
    expect(JSON.parse(mine?.json as string)).toMatchObject({
      id: 'Cancel_m0001',
      currentOwner: alice.userId,
    });
    const hers = await model.rule(alice.workspaceId, 'Cancel_h0001', alice.ownerUserId, 7);
    expect(hers?.workspace_id).toBe(carol.workspaceId);

    await rulesStore.delete(database.db, 'Cancel_m0001');
    await rulesStore.delete(database.db, 'Cancel_h0001');
    // Alice's version has not moved: her rule is still answered from memory, Carol's is read again.
    expect(await model.rule(alice.workspaceId, 'Cancel_m0001', alice.ownerUserId, 7)).toBe(mine);
    expect(await model.rule(alice.workspaceId, 'Cancel_h0001', alice.ownerUserId, 7)).toBeUndefined();
    expect(await model.rule(alice.workspaceId, 'Cancel_m0001', alice.ownerUserId, 8)).toBeUndefined();
    expect(await model.rule(alice.workspaceId, 'Cancel_nope1', alice.ownerUserId, 8)).toBeUndefined();
  });
});
