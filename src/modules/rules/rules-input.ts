// Reading a rule body: its fields and its pairs checked together, every problem of the body in one answer.
import { AppError, type ErrorDetail } from '../../errors.js';
import { isPlainObject, MalformedBody, payloadProblems } from '../../http/payload.js';
import { randomSuffix } from '../../ids.js';
import {
  checkRuleCreate,
  checkRuleUpdate,
  MAX_PAIRS,
  RULE_IGNORED_FIELDS,
  type RuleWrite,
} from '../../model/rule.js';
import { checkPairs, RULE_TYPES, type RuleType } from '../../model/rule-types/index.js';

const MAX_NAME = 256;
type Pair = Record<string, unknown>;

export interface RuleInput {
  /** The checked fields, `name` trimmed; `pairs` here are as sent. */
  write: RuleWrite;
  /** The pairs normalised, each with an id; absent when the body has none (an update may leave them). */
  pairs: Pair[] | undefined;
}

export interface ReadRuleOptions {
  /** A create needs name, ruleType and pairs; an update needs nothing. */
  creating: boolean;
  /** The stored rule's type, for an update (whose body may leave ruleType out). */
  storedType?: RuleType;
  maxDelayMs: number;
}

/**
 * The rule a body describes, or the error it deserves: `Rule Payload is invalid` when a top-level field
 * is wrong, else `Rule pairs are invalid`; either way with the problems of the fields and of the pairs
 * together, so a client fixes everything in one round trip. Paths point into the body as sent.
 */
export function readRule(body: unknown, options: ReadRuleOptions): RuleInput {
  // A body refused before parsing (nested too deep, unstorable text) at a place inside a pair: a pair problem.
  if (body instanceof MalformedBody && body.path.startsWith('/pairs/'))
    throw new AppError('RULE_PAIRS_INVALID', [{ path: body.path, message: body.reason }]);
  const { payload, details } = options.creating
    ? payloadProblems(body, checkRuleCreate, RULE_IGNORED_FIELDS)
    : payloadProblems(body, checkRuleUpdate, RULE_IGNORED_FIELDS);
  if (isPlainObject(body) && body.ruleType === 'Header') {
    for (const detail of details) {
      if (detail.path === '/ruleType') detail.message = 'unknown rule type "Header"; did you mean "Headers"?';
    }
  }
  const write = payload as RuleWrite;
  if (typeof write.name === 'string') {
    write.name = write.name.trim();
    if (write.name === '') details.push({ path: '/name', message: 'must not be blank' });
    else if (write.name.length > MAX_NAME)
      details.push({ path: '/name', message: `must be at most ${MAX_NAME} characters long` });
  }
  const ruleType = options.storedType ?? knownType(write.ruleType);
  const checked =
    ruleType && Array.isArray(write.pairs) ? readPairs(ruleType, write.pairs, options) : undefined;
  const pairDetails = checked?.details ?? [];
  if (details.length > 0) throw new AppError('RULE_PAYLOAD_INVALID', [...details, ...pairDetails]);
  if (pairDetails.length > 0) throw new AppError('RULE_PAIRS_INVALID', pairDetails);
  return { write, pairs: checked?.pairs };
}

function knownType(value: unknown): RuleType | undefined {
  return RULE_TYPES.find((name) => name === value);
}

/** Normalises and checks the pairs against the rule's type, and gives each pair an id. */
function readPairs(
  ruleType: RuleType,
  pairs: unknown[],
  { maxDelayMs }: ReadRuleOptions,
): { pairs: Pair[]; details: ErrorDetail[] } {
  if (pairs.length < 1 || pairs.length > MAX_PAIRS) {
    return { pairs: [], details: [{ path: '/pairs', message: `must hold 1 to ${MAX_PAIRS} pairs` }] };
  }
  const checked = checkPairs(ruleType, pairs, { maxDelayMs });
  const taken = new Set<unknown>();
  checked.pairs.forEach((pair, index) => {
    if (pair.id === undefined) return;
    if (taken.has(pair.id))
      checked.details.push({ path: `/pairs/${index}/id`, message: 'duplicate pair id in this rule' });
    taken.add(pair.id);
  });
  if (checked.details.length > 0) return checked;
  const withIds = checked.pairs.map((pair) => {
    if (pair.id !== undefined) return pair;
    let id = randomSuffix();
    while (taken.has(id)) id = randomSuffix();
    taken.add(id);
    return { id, ...pair };
  });
  return { pairs: withIds, details: [] };
}
