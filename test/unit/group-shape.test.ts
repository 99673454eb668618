// One shape per group: the mapper (toGroup) builds exactly the schema's group, every field of
// GROUP_FIELDS in order; a list item adds its counts to it.
import { Value } from '@sinclair/typebox/value';
import { expect, it } from 'vitest';
import { GROUP_FIELDS, Group, GroupListItem, toGroup } from '../../src/model/group.js';

const row = {
  id: 'Group_abcde',
  workspace_id: 'w1',
  name: 'shapes',
  status: 'Inactive',
  is_favourite: 1,
  created_by: 'u1',
  last_modified_by: 'u2',
  creation_date: 1000,
  modification_date: 2000,
};
const principal = {
  keyId: 'k1',
  via: 'key' as const,
  userId: 'u2',
  workspaceId: 'w1',
  ownerUserId: 'u1',
  role: 'editor' as const,
};

it('a group built by the mapper is its schema’s, fields in order', () => {
  const group = JSON.parse(JSON.stringify(toGroup(row, principal)));
  expect([...Value.Errors(Group, group)]).toEqual([]);
  expect(Object.keys(group)).toEqual(GROUP_FIELDS);
  expect(group).toMatchObject({ isFavourite: true, currentOwnerId: 'u1', objectType: 'group' });
  expect(Value.Check(GroupListItem, { ...group, ruleCount: 2, activeRuleCount: 1 })).toBe(true);
});
