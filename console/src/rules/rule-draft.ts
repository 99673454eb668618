// A rule being written: the body POST /v1/rules and PUT /v1/rules/:id take, as plain JSON, so the
// form and the JSON view edit one value and the service checks it as it would any client's.
import type { Rule, RuleType } from '../api.js';
import { emptyValue, pairSchema } from '../forms/schema.js';

export interface RuleDraft {
  name: string;
  description: string;
  status: 'Active' | 'Inactive';
  ruleType: RuleType;
  groupId: string;
  /** Pinned (Requestly's favourite). */
  isFavourite?: boolean;
  pairs: unknown[];
  [other: string]: unknown;
}

/** A new rule starts Inactive, as the API's does: it acts once someone switches it on, on purpose. */
export function newDraft(ruleType: RuleType, groupId = ''): RuleDraft {
  return {
    name: '',
    description: '',
    status: 'Inactive',
    ruleType,
    groupId,
    pairs: [emptyValue(pairSchema(ruleType))],
  };
}

export function draftOf(rule: Rule): RuleDraft {
  const { name, description, status, ruleType, groupId, isFavourite, pairs } = rule;
  return {
    name,
    description,
    status,
    ruleType,
    groupId,
    isFavourite,
    pairs: structuredClone(pairs) as unknown[],
  };
}

/** A new type starts from its own empty pair: pairs of one type mean nothing to another. */
export function withType(draft: RuleDraft, ruleType: RuleType): RuleDraft {
  return draft.ruleType === ruleType
    ? draft
    : { ...draft, ruleType, pairs: [emptyValue(pairSchema(ruleType))] };
}
