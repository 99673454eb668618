// What each scenario sends. Static requests are built once by autocannon; only the status toggle of
// update-rule is built per request, so that neighbouring requests touch different rules.
import type { Request } from 'autocannon';
import { ruleBody } from './rule-bodies.js';
import { headersFor, type Workspace } from './seed-api.js';

/** At most `count` ids spread over the whole list (not just the newest). */
export function spread(ids: string[], count: number): string[] {
  if (ids.length <= count) return ids;
  return Array.from({ length: count }, (_, i) => ids[Math.floor((i * ids.length) / count)] as string);
}

/** Bodies for create-rule: every rule type, one to three pairs; no group (groups differ per workspace). */
export const CREATE_BODIES = Array.from({ length: 30 }, (_, n) => JSON.stringify(ruleBody(n + 100_000)));

export function getRule(ids: string[], key: string, prefix = '/v1/rules/'): Request[] {
  return spread(ids, 1000).map((id) => ({ method: 'GET', path: `${prefix}${id}`, headers: headersFor(key) }));
}

export function listRules(key: string, offset = 0): Request[] {
  const path = offset > 0 ? `/v1/rules?offset=${offset}&pageSize=100` : '/v1/rules?pageSize=100';
  return [{ method: 'GET', path, headers: headersFor(key) }];
}

export function createRule(key: string, path = '/v1/rules'): Request[] {
  return CREATE_BODIES.map((body) => ({ method: 'POST', path, headers: headersFor(key, true), body }));
}

/** PUT {status} on the rules in turn; each pass over them flips Active and Inactive. */
function statusToggle(ids: string[], key: string): Request {
  const targets = spread(ids, 1000);
  const headers = headersFor(key, true);
  let n = 0;
  return {
    method: 'PUT',
    setupRequest: (request) => {
      const id = targets[n % targets.length];
      const status = Math.floor(n / targets.length) % 2 === 0 ? 'Inactive' : 'Active';
      n += 1;
      return { ...request, method: 'PUT', path: `/v1/rules/${id}`, headers, body: `{"status":"${status}"}` };
    },
  };
}

export function updateRule(main: Workspace): Request[] {
  return [statusToggle(main.ruleIds, main.key)];
}

/**
 * 90 % reads and 10 % writes: blocks of 18 GETs of rules of the main workspace, one status toggle on
 * the main workspace and one create in the writes workspace (so the main workspace keeps its size).
 */
export function mixed(main: Workspace, writes: Workspace): Request[] {
  const reads = getRule(main.ruleIds, main.key);
  const creates = createRule(writes.key);
  const toggle = statusToggle(main.ruleIds, main.key);
  const requests: Request[] = [];
  for (let block = 0; block < 10; block++) {
    for (let i = 0; i < 18; i++) requests.push(reads[(block * 18 + i) % reads.length] as Request);
    requests.push(toggle, creates[block % creates.length] as Request);
  }
  return requests;
}
