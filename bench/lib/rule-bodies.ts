// Realistic rule bodies for seeding and for create-rule: every rule type, built from the valid
// example pairs each rule type declares, with names, descriptions, statuses and pair counts that vary.
import { RULE_TYPES, type RuleType, ruleTypes } from '../../src/model/rule-types/index.js';

export interface RuleBody {
  name: string;
  description?: string;
  status: 'Active' | 'Inactive';
  ruleType: RuleType;
  groupId?: string;
  pairs: Record<string, unknown>[];
}

const SUBJECTS = ['checkout', 'login', 'search API', 'CDN assets', 'analytics', 'payments', 'feature flags'];
const PURPOSES = ['on staging', 'for QA', 'while debugging', 'in the demo', 'for the mobile team'];

/** The valid example pairs of a type, without their pair ids (the service assigns fresh ones). */
function examplePairs(type: RuleType): Record<string, unknown>[] {
  return ruleTypes[type].examples.valid.map(({ pair }) => {
    const { id: _id, ...rest } = pair;
    return rest;
  });
}

const PAIRS = new Map(RULE_TYPES.map((type) => [type, examplePairs(type)]));

/**
 * Rule number `n` (any integer ≥ 0): the types take turns, one to three pairs, about two thirds
 * active, every third with a description, and `groupIds[n % …]` for every other rule when given.
 */
export function ruleBody(n: number, groupIds: string[] = []): RuleBody {
  const ruleType = RULE_TYPES[n % RULE_TYPES.length] as RuleType;
  const examples = PAIRS.get(ruleType) ?? [];
  const count = 1 + (Math.floor(n / RULE_TYPES.length) % 3);
  const pairs = Array.from({ length: count }, (_, i) => examples[(n + i) % examples.length] ?? {});
  const subject = SUBJECTS[n % SUBJECTS.length];
  const purpose = PURPOSES[Math.floor(n / 7) % PURPOSES.length];
  const body: RuleBody = {
    name: `${ruleType} ${subject} ${purpose} #${n}`,
    status: n % 3 === 2 ? 'Inactive' : 'Active',
    ruleType,
    pairs,
  };
  if (n % 3 === 0) body.description = `Set up for ticket QA-${1000 + n}: ${ruleType} ${subject} ${purpose}.`;
  if (groupIds.length > 0 && n % 2 === 0) body.groupId = groupIds[(n >> 1) % groupIds.length];
  return body;
}
