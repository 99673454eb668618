// The crash test's bookkeeping: every write sent (tagged so that a stored rule names the request that
// wrote it), every acknowledged state, and the check of what a restarted service holds against them.
// Pure functions, so that the check itself is tested against deliberately corrupted states.
import { Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { RuleOfType } from '../../src/model/rule.js';
import { checkPairs, RULE_TYPES, type RuleType, ruleTypes } from '../../src/model/rule-types/index.js';

export type Rule = Record<string, unknown> & { id: string; modificationDate: number };

export interface RuleWrite {
  name: string;
  description: string;
  status: 'Active' | 'Inactive';
  ruleType: RuleType;
  pairs: Record<string, unknown>[];
}

export interface SentWrite {
  kind: 'create' | 'update';
  /** The rule updated (updates only). */
  id?: string;
  body: RuleWrite;
  acknowledged: boolean;
}

/** One crash cycle: the durable state before it, the writes sent during it, the last acknowledged states. */
export interface CrashCycle {
  baseline: Map<string, Rule>;
  sent: Map<string, SentWrite>;
  acked: Map<string, Rule>;
}

export function newCycle(baseline: Map<string, Rule>): CrashCycle {
  return { baseline, sent: new Map(), acked: new Map(baseline) };
}

/** A full write tagged `tag`: the tag is in the name, the description and every pair id. */
export function taggedWrite(tag: string, ruleType: RuleType, pick: number, status: boolean): RuleWrite {
  const examples = ruleTypes[ruleType].examples.valid;
  const chosen = examples.slice(0, 1 + (pick % examples.length));
  return {
    name: `crash ${tag}`,
    description: `written by ${tag}`,
    status: status ? 'Active' : 'Inactive',
    ruleType,
    pairs: chosen.map(({ pair }, index) => ({ ...pair, id: `${tag}p${index}` })),
  };
}

/** Remembers an acknowledged state; of two acknowledged states the later modificationDate wins. */
export function acknowledge(cycle: CrashCycle, tag: string, rule: Rule): void {
  const sent = cycle.sent.get(tag);
  if (sent) sent.acknowledged = true;
  const previous = cycle.acked.get(rule.id);
  if (!previous || previous.modificationDate < rule.modificationDate) cycle.acked.set(rule.id, rule);
}

const tagOf = (rule: Rule) => (typeof rule.name === 'string' ? rule.name.replace(/^crash /, '') : '');

/** The schema of a rule of `type` but for its pairs, which are checked as a write's are (below). */
const fieldsOf = (type: RuleType) => Type.Omit(RuleOfType[type], ['pairs']);

/** Problems with one rule read back on its own: every field of its schema there and of its form, pairs valid. */
function wholeAndValid(rule: Rule): string[] {
  if (!RULE_TYPES.includes(rule.ruleType as RuleType)) return ['unknown ruleType'];
  const type = rule.ruleType as RuleType;
  const { pairs, ...fields } = rule;
  const problems = [...Value.Errors(fieldsOf(type), fields)].map(
    (error) => `${error.path.slice(1) || 'the rule'}: ${error.message}`,
  );
  if (!new RegExp(`^${type}_[0-9a-z]{5}$`).test(rule.id)) problems.push('id not of its type');
  if (!Array.isArray(pairs) || pairs.length === 0) return [...problems, 'pairs not a non-empty array'];
  const checked = checkPairs(type, pairs, { maxDelayMs: 60_000 });
  for (const detail of checked.details) problems.push(`pair invalid at ${detail.path}: ${detail.message}`);
  return problems;
}

/**
 * The stored rule is exactly what `body` asked for (so no field comes from another write), its pairs
 * as the service stores them: normalised to the canonical shape.
 */
function matchesWrite(rule: Rule, body: RuleWrite): boolean {
  const canonical = {
    ...body,
    pairs: checkPairs(body.ruleType as RuleType, body.pairs as unknown[], { maxDelayMs: 60_000 }).pairs,
  };
  const fields = ['name', 'description', 'status', 'ruleType', 'pairs'] as const;
  return fields.every((field) => JSON.stringify(rule[field]) === JSON.stringify(canonical[field]));
}

const IMMUTABLE = ['id', 'ruleType', 'createdBy', 'creationDate', 'groupId', 'currentOwner', 'objectType'];

/**
 * Every problem with `stored` (the whole list a restarted service answers) given what happened in the
 * cycle; empty when every acknowledged write is there intact and nothing half-written exists.
 */
export function crashProblems(cycle: CrashCycle, stored: Rule[]): string[] {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const rule of stored) {
    const where = `rule ${String(rule.id)}`;
    if (seen.has(rule.id)) problems.push(`${where}: listed twice`);
    seen.add(rule.id);
    for (const problem of wholeAndValid(rule)) problems.push(`${where}: ${problem}`);
    const acked = cycle.acked.get(rule.id);
    if (acked && rule.modificationDate === acked.modificationDate) {
      if (JSON.stringify(rule) !== JSON.stringify(acked))
        problems.push(`${where}: differs from its acknowledged state ${JSON.stringify(acked)}`);
      continue;
    }
    if (acked && rule.modificationDate < acked.modificationDate) {
      problems.push(
        `${where}: acknowledged write lost (modificationDate ${acked.modificationDate} expected)`,
      );
      continue;
    }
    // A write that was not acknowledged landed: it must be one request sent in this cycle, complete.
    const sent = cycle.sent.get(tagOf(rule));
    if (!sent || !matchesWrite(rule, sent.body)) {
      problems.push(`${where}: matches no request sent (half-written or foreign): ${JSON.stringify(rule)}`);
      continue;
    }
    if (sent.acknowledged) problems.push(`${where}: holds an acknowledged write superseded by a later one`);
    if (acked) {
      if (sent.kind !== 'update' || sent.id !== rule.id)
        problems.push(`${where}: written by a request for another rule`);
      for (const field of IMMUTABLE)
        if (JSON.stringify(rule[field]) !== JSON.stringify(acked[field]))
          problems.push(`${where}: ${field} changed`);
    } else if (sent.kind !== 'create' || rule.modificationDate !== rule.creationDate) {
      problems.push(`${where}: an unknown rule that no create explains`);
    }
  }
  for (const id of cycle.acked.keys())
    if (!seen.has(id)) problems.push(`rule ${id}: acknowledged, now missing`);
  return problems;
}
