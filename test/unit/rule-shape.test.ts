// One shape per rule, on both databases: the JSON the database builds for a rule (one rule, and a page)
// and the object the mapper builds (toRule) are, for every rule type, exactly its schema's: every
// field of its type's fields (ruleFieldsOf: RULE_FIELDS, and a Script's removeCSPHeader) in order and
// nothing else, each of its form. A field added to the schema but
// not to the SQL or the mapper fails here (and the SQL's and mapper's own types say so first).
import { Value } from '@sinclair/typebox/value';
import { beforeAll, expect, it } from 'vitest';
import type { RuleRow } from '../../src/db/tables.js';
import { RuleOfType, ruleFieldsOf, toRule } from '../../src/model/rule.js';
import { RULE_TYPES, type RuleType, ruleTypes } from '../../src/model/rule-types/index.js';
import { createGroupsStore } from '../../src/modules/groups/groups-store.js';
import { useRulesDatabase } from '../helpers/rules-database.js';
import { forEachDatabase } from '../helpers/test-app.js';

/** The problems of `rule` against its type's schema, as readable lines (none when it fits). */
function shapeProblems(type: RuleType, rule: unknown): string[] {
  const problems = [...Value.Errors(RuleOfType[type], rule)].map((e) => `${e.path}: ${e.message}`);
  const keys = Object.keys(rule as object);
  const fields = ruleFieldsOf(type);
  if (keys.join() !== fields.join()) problems.push(`fields ${keys.join()} are not ${fields.join()}`);
  return problems;
}

forEachDatabase((kind) => {
  const rules = useRulesDatabase(kind);
  const rows = new Map<RuleType, RuleRow>();

  beforeAll(async () => {
    const { database, alice, insertRule } = rules();
    const group = 'Group_shape';
    await createGroupsStore(database.db, database.dialect).insert(database.db, {
      id: group,
      workspace_id: alice.workspaceId,
      name: 'shapes',
      status: 'Active',
      is_favourite: 0,
      created_by: alice.userId,
      last_modified_by: alice.userId,
      creation_date: 1,
      modification_date: 1,
    });
    for (const [index, type] of RULE_TYPES.entries()) {
      const pairs = ruleTypes[type].examples.valid.map((example) => example.pair);
      // Some pinned, some not; the Script rule leaving its documents' policy (both forms of each boolean).
      const body = {
        name: `${type} shape`,
        ruleType: type,
        status: 'Active',
        pairs,
        isFavourite: index % 2 === 1,
        ...(type === 'Script' ? { removeCSPHeader: false } : {}),
      };
      const row = await insertRule(alice, body, `${type}_shape`, 1000 + index);
      // Every other rule in a group, so that both forms of groupId are seen.
      if (index % 2 === 0) {
        await database.db.updateTable('rules').set({ group_id: group }).where('id', '=', row.id).execute();
        row.group_id = group;
      }
      rows.set(type, row);
    }
  });

  it.each(RULE_TYPES)(
    'a %s rule built by the database, alone and in a page, is its schema’s',
    async (type) => {
      const { rulesStore, alice } = rules();
      const one = await rulesStore.findJson(`${type}_shape`, alice.ownerUserId);
      const single = JSON.parse(one?.json as string);
      expect(shapeProblems(type, single)).toEqual([]);
      const [inPage] = await rulesStore.listJson(
        { workspaceId: alice.workspaceId, ruleType: type },
        alice.ownerUserId,
        0,
        10,
      );
      expect(JSON.parse(inPage as string)).toStrictEqual(single);
    },
  );

  it.each(RULE_TYPES)(
    'a %s rule built by the mapper is its schema’s and the same as the database’s',
    async (type) => {
      const { rulesStore, alice } = rules();
      const mapped = JSON.parse(JSON.stringify(toRule(rows.get(type) as RuleRow, alice)));
      expect(shapeProblems(type, mapped)).toEqual([]);
      const built = await rulesStore.findJson(`${type}_shape`, alice.ownerUserId);
      expect(mapped).toStrictEqual(JSON.parse(built?.json as string));
    },
  );

  it('tells a rule off its shape: a field missing, one too many, out of order', () => {
    const rule = JSON.parse(JSON.stringify(toRule(rows.get('Cancel') as RuleRow, rules().alice)));
    const { objectType, ...missing } = rule;
    expect(shapeProblems('Cancel', missing)).not.toEqual([]);
    expect(shapeProblems('Cancel', { ...rule, extra: 1 })).not.toEqual([]);
    expect(shapeProblems('Cancel', { objectType, ...missing })).not.toEqual([]);
    const { id, ...pairWithoutId } = rule.pairs[0];
    expect(shapeProblems('Cancel', { ...rule, pairs: [pairWithoutId] })).not.toEqual([]);
    expect(shapeProblems('Cancel', { ...rule, creationDate: String(rule.creationDate) })).not.toEqual([]);
    expect(shapeProblems('Cancel', rule)).toEqual([]);
  });
});
