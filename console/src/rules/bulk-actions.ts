// What the list does to many rules at once, one API call per rule (the API has no batch write): each
// rule's answer is its own, so one refusal (a rule deleted meanwhile) leaves the others done and is
// reported by name.
import { ApiError, type Rule, type RulekeeperClient } from '../api.js';
import { describeError } from '../session.js';
import { draftOf } from './rule-draft.js';

type Api = <T>(
  call: (client: RulekeeperClient) => Promise<{ data?: T; error?: unknown; response: Response }>,
) => Promise<T>;

export interface BulkResult {
  /** The rules it was done to. */
  done: Rule[];
  failed: { rule: Rule; reason: string }[];
}

// A few at a time: quick for a page of rules, gentle with the service's rate limit.
const AT_ONCE = 4;

async function eachRule(rules: Rule[], act: (rule: Rule) => Promise<unknown>): Promise<BulkResult> {
  const result: BulkResult = { done: [], failed: [] };
  const queue = [...rules];
  const worker = async () => {
    for (let rule = queue.shift(); rule; rule = queue.shift()) {
      try {
        await act(rule);
        result.done.push(rule);
      } catch (failure) {
        const review = failure instanceof ApiError && failure.code === 'REVIEW_REQUIRED';
        result.failed.push({
          rule,
          reason: review
            ? 'this workspace requires review of changes: propose it from the rule’s page'
            : describeError(failure),
        });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(AT_ONCE, rules.length) }, worker));
  const order = new Map(rules.map((rule, index) => [rule.id, index]));
  result.done.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
  return result;
}

const put = (api: Api, rule: Rule, body: { status?: Rule['status']; groupId?: string }) =>
  api((client) => client.PUT('/v1/rules/{ruleId}', { params: { path: { ruleId: rule.id } }, body }));

export const setStatus = (api: Api, rules: Rule[], status: Rule['status']) =>
  eachRule(rules, (rule) => put(api, rule, { status }));

export const moveToGroup = (api: Api, rules: Rule[], groupId: string) =>
  eachRule(rules, (rule) => put(api, rule, { groupId }));

/** Copies are created inactive: two copies of a rule acting at once is never what was meant. */
export const duplicate = (api: Api, rules: Rule[]) =>
  eachRule(rules, (rule) =>
    api((client) =>
      client.POST('/v1/rules', {
        body: { ...draftOf(rule), name: `${rule.name} (copy)`, status: 'Inactive' } as never,
      }),
    ),
  );

export const remove = (api: Api, rules: Rule[]) =>
  eachRule(rules, (rule) =>
    api((client) => client.DELETE('/v1/rules/{ruleId}', { params: { path: { ruleId: rule.id } } })),
  );

/** Brings a deleted rule back as it was when deleted: its newest kept version is that content. */
export async function restoreDeleted(api: Api, ruleId: string): Promise<Rule> {
  const versions = await api((client) =>
    client.GET('/v1/rules/{ruleId}/versions', { params: { path: { ruleId } } }),
  );
  const [newest] = versions.data;
  if (newest?.change !== 'deleted') throw new Error('It is not deleted any more.');
  const restored = await api((client) =>
    client.POST('/v1/rules/{ruleId}/restore', {
      params: { path: { ruleId } },
      body: { version: newest.version },
    }),
  );
  return restored.data as Rule;
}

export const undelete = (api: Api, rules: Rule[]) => eachRule(rules, (rule) => restoreDeleted(api, rule.id));

/** "3 rules activated." and, for any refused, which and why. */
export function describeResult(result: BulkResult, done: string): string {
  const count = result.done.length;
  const head = `${count} ${count === 1 ? 'rule' : 'rules'} ${done}.`;
  if (result.failed.length === 0) return head;
  const failures = result.failed.map(({ rule, reason }) => `“${rule.name}”: ${reason}`).join('; ');
  return `${head} Not done for ${failures}`;
}
