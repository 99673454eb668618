// The console's words for change requests: where a refusal points, said as people count (operation
// and pair numbers from 1, no JSON pointers), what each operation does, and a merge conflict as the
// rules and groups that moved, each with a link.
import { describe, expect, it } from 'vitest';
import type { ChangeOperation } from '../../console/src/api.js';
import {
  browserWords,
  movedObjects,
  nameKey,
  operationWords,
  pointerWords,
  refusalSentence,
} from '../../console/src/change-requests/change-request-words.js';

const names = new Map([
  [nameKey('rule', 'Redirect_1'), 'API to staging'],
  [nameKey('group', 'Group_1'), 'Payments'],
]);

describe('a change request in words', () => {
  it('says where a refusal points, counting from 1', () => {
    expect(pointerWords('/operations/1/body/pairs/0/source/value')).toBe(
      'operation 2 › pair 1 › source › value',
    );
    expect(pointerWords('/operations/0/id')).toBe('operation 1 › id');
    expect(pointerWords('/title')).toBe('title');
    const said = refusalSentence('The change was not proposed', 'Invalid rule pairs', [
      { path: '/operations/0/body/pairs/2/destination', message: 'must be a URL' },
    ]);
    expect(said).toBe(
      'The change was not proposed: Invalid rule pairs (operation 1 › pair 3 › destination: must be a URL).',
    );
    expect(said).not.toMatch(/\/operations/);
  });

  it('names what each operation does, by name when known', () => {
    const ops: ChangeOperation[] = [
      { op: 'update', kind: 'rule', id: 'Redirect_1', body: {} },
      { op: 'delete', kind: 'group', id: 'Group_1' },
      { op: 'create', kind: 'rule', body: { name: 'New one' } },
      { op: 'update', kind: 'rule', id: 'Cancel_9', body: {} },
    ];
    expect(ops.map((op) => operationWords(op, names))).toEqual([
      'Change the rule “API to staging”',
      'Delete the group “Payments”',
      'Create a new rule “New one”',
      'Change the rule Cancel_9',
    ]);
  });

  it('says which rules and groups a conflicting merge found moved, with links', () => {
    // The details of a 409 Changed since the change request was made.
    const details = [
      {
        path: '/operations/0/id',
        message: 'rule "Redirect_1" changed at revision 7, after the base revision 5',
      },
      {
        path: '/operations/1/id',
        message: 'group "Group_1" changed at revision 6, after the base revision 5',
      },
    ];
    const ops: ChangeOperation[] = [
      { op: 'update', kind: 'rule', id: 'Redirect_1', body: {} },
      { op: 'delete', kind: 'group', id: 'Group_1' },
    ];
    expect(movedObjects(details, ops, names)).toEqual([
      {
        words:
          'The rule “API to staging” was changed by someone else (revision 7) after this change request was written',
        href: '#/rules/Redirect_1',
      },
      {
        words:
          'The group “Payments” was changed by someone else (revision 6) after this change request was written',
        href: '#/groups',
      },
    ]);
  });

  it('says a browser status as what the rule does there', () => {
    expect([
      browserWords('compiled'),
      browserWords('partial'),
      browserWords('not_compiled'),
      browserWords(null),
    ]).toEqual([
      'runs in the browser',
      'runs in part in the browser',
      'cannot run in the browser',
      'is not in the browser (absent or inactive)',
    ]);
  });
});
