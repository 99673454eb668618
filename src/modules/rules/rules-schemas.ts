// Schemas of the rules routes: path parameters, the list query, the message of a DELETE.
import { Type } from '@sinclair/typebox';
import { Status } from '../../model/common.js';
import { RuleTypeSchema } from '../../model/rule.js';
import { compile } from '../../validation.js';
import { PageQuery } from '../shared/schemas.js';

/** The message of a DELETE of a rule. */
export const RULE_DELETED = 'Rule deleted successfully';

export const RuleParams = Type.Object({ ruleId: Type.String({ examples: ['Redirect_a1b2c'] }) });

export const RuleListQuery = Type.Object(
  {
    ...PageQuery,
    status: Type.Optional(Status),
    ruleType: Type.Optional(RuleTypeSchema),
    groupId: Type.Optional(
      Type.String({ maxLength: 256, description: 'Rules of this group; "" for ungrouped.' }),
    ),
    search: Type.Optional(Type.String({ maxLength: 256, description: 'Case-insensitive part of the name.' })),
  },
  { additionalProperties: false },
);
export const checkRuleListQuery = compile(RuleListQuery);
