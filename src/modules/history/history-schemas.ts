// Schemas of history: an object's versions, the deleted rules that can be restored, a restore's body.
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { pageQuery } from '../../http/schemas.js';
import { MAX_STORED_INTEGER, Timestamp } from '../../model/common.js';
import { Rule, RuleTypeSchema } from '../../model/rule.js';
import { compile } from '../../validation.js';
import { ByName, Change } from '../changes/changes-schemas.js';

export function versionsOf<T extends TSchema>(object: T) {
  return Type.Object(
    {
      success: Type.Literal(true),
      data: Type.Array(
        Type.Object(
          {
            version: Type.Integer({ description: "1 for the object's first change, one more with each." }),
            revision: Type.Integer(),
            change: Change,
            at: Timestamp,
            by: Type.String({ description: 'User id of the key that made the change.' }),
            byName: ByName,
            changeRequestId: Type.Optional(
              Type.String({
                description: 'The change request whose merge made this version (absent for a direct write).',
              }),
            ),
            reviewBypassed: Type.Optional(
              Type.Literal(true, {
                description: "A direct write by an admin or owner while the workspace's review was required.",
              }),
            ),
            // The object's own schema, not a copy: a named schema (an $id) must have one content.
            object,
          },
          { additionalProperties: false },
        ),
        { description: 'Each version: the content after its change, or as it was when deleted.' },
      ),
    },
    { additionalProperties: false },
  );
}

/** The query of the deleted lists: paging only, as documented or as checked (`checked`: see pageQuery). */
const deletedQuery = (checked: boolean) => Type.Object(pageQuery(checked), { additionalProperties: false });
export const DeletedListQuery = deletedQuery(false);
export const checkDeletedListQuery = compile(deletedQuery(true));

/** A deleted rule that can be restored, as `GET /v1/rules/deleted` lists it. */
export const DeletedRule = Type.Object(
  {
    id: Type.String({ description: 'The rule id, still its workspace’s.' }),
    name: Type.String({ description: 'Its name when it was deleted.' }),
    ruleType: RuleTypeSchema,
    deletedAt: Timestamp,
    deletedBy: Type.String({ description: 'User id of the key that deleted it.' }),
    deletedByName: ByName,
    version: Type.Integer({
      description:
        'The version to restore (`POST /v1/rules/{ruleId}/restore`): the rule as it was when deleted.',
    }),
    // The rule's own schema, not a copy: a named schema (an $id) must have one content.
    rule: Rule,
  },
  {
    $id: 'DeletedRule',
    description: 'A deleted rule that can be restored; `rule` is the rule as it was when deleted.',
    additionalProperties: false,
  },
);

export const RestoreBody = Type.Object(
  {
    version: Type.Integer({
      minimum: 1,
      maximum: MAX_STORED_INTEGER,
      description: 'The version whose content becomes current.',
    }),
  },
  { additionalProperties: false },
);
export const checkRestoreBody = compile(RestoreBody);
export type RestoreBody = Static<typeof RestoreBody>;
