// Schemas of the rules routes: path parameters, the list query, the message of a DELETE.
import { type TSchema, Type } from '@sinclair/typebox';
import { pageQuery } from '../../http/schemas.js';
import { STORABLE_TEXT_PATTERN, Status } from '../../model/common.js';
import { Finding } from '../../model/finding.js';
import type { Principal } from '../../model/principal.js';
import { RULE_ID_PATTERN, RuleTypeSchema } from '../../model/rule.js';
import { RULE_SORTS } from '../../model/rule-search.js';
import { compile } from '../../validation.js';

/** The message of a DELETE of a rule. */
export const RULE_DELETED = 'Rule deleted successfully';

// Another form names no rule: 404 Rule not found (after the key check).
export const RuleParams = Type.Object({
  ruleId: Type.String({ pattern: RULE_ID_PATTERN, examples: ['Redirect_a1b2c'] }),
});

/**
 * Free text of the query: documented with the pattern of what list.ts refuses (NUL, a lone surrogate);
 * checked without it, so that list.ts says so in its own words.
 */
const queryText = (checked: boolean, description: string) =>
  Type.String({ maxLength: 256, description, ...(checked ? {} : { pattern: STORABLE_TEXT_PATTERN }) });

/** The list query as documented, or as checked (`checked`: see pageQuery). */
const ruleListQuery = (checked: boolean) =>
  Type.Object(
    {
      ...pageQuery(checked),
      status: Type.Optional(Status),
      ruleType: Type.Optional(RuleTypeSchema),
      groupId: Type.Optional(queryText(checked, 'Rules of this group; "" for ungrouped.')),
      isFavourite: Type.Optional(
        Type.Union([Type.Literal('true'), Type.Literal('false')], {
          description: '`true`: pinned rules only (`isFavourite`); `false`: the others.',
        }),
      ),
      search: Type.Optional(
        queryText(checked, 'Case-insensitive part of the name, the description or a source value.'),
      ),
      sort: Type.Optional(
        Type.Union(
          RULE_SORTS.map((sort) => Type.Literal(sort)),
          {
            description:
              'The order: `creationDate` (the default, oldest first), `name`, `ruleType` (then name), `modificationDate` (least recently changed first), `-modificationDate` (most recently changed first), `pinned` (pinned rules first, then by name), `status` (active rules first, then by name) or `group` (by group, in the order GET /v1/groups lists them, ungrouped rules last; each group’s rules by name). Ties are in id order.',
          },
        ),
      ),
    },
    { additionalProperties: false },
  );
export const RuleListQuery = ruleListQuery(false);
export const checkRuleListQuery = compile(ruleListQuery(true));

/**
 * The answer to a write of a rule: the rule, and what the rule lint finds about it in the workspace as
 * it is after the write. Warnings never refuse a valid rule: it is written either way.
 */
export function withWarnings<T extends TSchema>(data: T) {
  return Type.Object(
    {
      success: Type.Literal(true),
      data,
      warnings: Type.Array(Finding, {
        description:
          "The rule lint's findings about this rule (GET /v1/lint has every rule's); [] when there are none, " +
          'when they were not ready within LINT_WRITE_WAIT_MS (GET /v1/lint has them), ' +
          'or when the lint could not run within its limits (the rule is written all the same; GET /v1/lint says why).',
      }),
    },
    { additionalProperties: false },
  );
}

/**
 * The findings about one rule of a workspace, as the lint service answers them; `recorded`, the
 * revision the write recorded (a replayed create recorded none).
 */
export type RuleWarnings = (principal: Principal, ruleId: string, recorded?: number) => Promise<Finding[]>;
