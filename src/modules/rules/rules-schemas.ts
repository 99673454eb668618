// Schemas of the rules routes: path parameters, the list query, the message of a DELETE.
import { Type } from '@sinclair/typebox';
import { Status } from '../../model/common.js';
import { RULE_ID_PATTERN, RuleTypeSchema } from '../../model/rule.js';
import { compile } from '../../validation.js';
import { pageQuery } from '../shared/schemas.js';

/** The message of a DELETE of a rule. */
export const RULE_DELETED = 'Rule deleted successfully';

// Another form names no rule: 404 Rule not found (after the key check).
export const RuleParams = Type.Object({
  ruleId: Type.String({ pattern: RULE_ID_PATTERN, examples: ['Redirect_a1b2c'] }),
});

/** The list query as documented, or as checked (`checked`: see pageQuery). */
const ruleListQuery = (checked: boolean) =>
  Type.Object(
    {
      ...pageQuery(checked),
      status: Type.Optional(Status),
      ruleType: Type.Optional(RuleTypeSchema),
      groupId: Type.Optional(
        Type.String({ maxLength: 256, description: 'Rules of this group; "" for ungrouped.' }),
      ),
      search: Type.Optional(
        Type.String({ maxLength: 256, description: 'Case-insensitive part of the name.' }),
      ),
    },
    { additionalProperties: false },
  );
export const RuleListQuery = ruleListQuery(false);
export const checkRuleListQuery = compile(ruleListQuery(true));
