// Seeding a running service through its own API: keys from the CLI, then groups and rules, with a few
// requests in flight at once. Used for the databases of thousands of rules.

import { runCli } from './processes.js';
import { ruleBody } from './rule-bodies.js';

export interface Workspace {
  name: string;
  key: string;
  workspaceId: string;
  /** Ids of the workspace's rules, oldest first. */
  ruleIds: string[];
}

export interface SeededStore {
  /** Read by get-rule, list-rules, update-rule and the reads of mixed. */
  main: Workspace;
  /** Written by create-rule and the creates of mixed, so that the main workspace keeps its size. */
  writes: Workspace;
  others: Workspace[];
  /** The main workspace's rules as the API returned them (json-server serves the same). */
  mainRules: Record<string, unknown>[];
}

export interface SeedSize {
  mainRules: number;
  otherWorkspaces: number;
  otherRules: number;
}

/** `x-api-key` and a JSON body, as every write of the bench sends them. */
export function headersFor(key: string, body = false): Record<string, string> {
  return body ? { 'x-api-key': key, 'content-type': 'application/json' } : { 'x-api-key': key };
}

export async function post(url: string, key: string, body: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    method: 'POST',
    headers: headersFor(key, true),
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`POST ${url} answered ${response.status}: ${text}`);
  return (JSON.parse(text) as { data: Record<string, unknown> }).data;
}

/** `work(i)` for i in 0..count-1 with at most `width` running at once; results in order of i. */
export async function pool<T>(count: number, width: number, work: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      results[i] = await work(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, count) }, worker));
  return results;
}

/** A key for `workspace` from `rulekeeper keys create` (which creates the workspace). */
export async function issueKey(databaseUrl: string, workspace: string, user: string) {
  const stdout = await runCli(
    ['keys', 'create', '--workspace', workspace, '--user', user, '--json'],
    databaseUrl,
  );
  return JSON.parse(stdout.trim()) as { key: string; workspaceId: string; userId: string };
}

async function seedWorkspace(
  baseUrl: string,
  issued: { key: string; workspaceId: string },
  name: string,
  rules: number,
  offset: number,
): Promise<{ workspace: Workspace; created: Record<string, unknown>[] }> {
  const groupCount = Math.min(30, Math.ceil(rules / 100));
  const groups = await pool(groupCount, 4, (i) =>
    post(`${baseUrl}/v1/groups`, issued.key, { name: `${name} group ${i + 1}`, isFavourite: i === 0 }),
  );
  const groupIds = groups.map((group) => String(group.id));
  // Rule numbers differ between workspaces so that each holds a different mix of names and pairs.
  const created = await pool(rules, 16, (i) =>
    post(`${baseUrl}/v1/rules`, issued.key, ruleBody(offset + i, groupIds)),
  );
  const ruleIds = created.map((rule) => String(rule.id));
  return { workspace: { name, key: issued.key, workspaceId: issued.workspaceId, ruleIds }, created };
}

/**
 * Seeds a running service (which has migrated its database already): the main workspace, the writes
 * workspace and `size.otherWorkspaces` more, each with its own key from the CLI.
 */
export async function seedStore(baseUrl: string, databaseUrl: string, size: SeedSize): Promise<SeededStore> {
  const plan = [
    { name: 'bench-main', rules: size.mainRules, offset: 0 },
    { name: 'bench-writes', rules: 10, offset: 1 },
    ...Array.from({ length: size.otherWorkspaces }, (_, i) => ({
      name: `bench-other-${i + 1}`,
      rules: size.otherRules,
      offset: 17 * (i + 1),
    })),
  ];
  const keys = await Promise.all(plan.map(({ name }) => issueKey(databaseUrl, name, `${name}-admin`)));
  const [main, writes, ...others] = await Promise.all(
    plan.map(({ name, rules, offset }, i) =>
      seedWorkspace(baseUrl, keys[i] as { key: string; workspaceId: string }, name, rules, offset),
    ),
  );
  if (!main || !writes) throw new Error('the main and writes workspaces were not seeded');
  return {
    main: main.workspace,
    writes: writes.workspace,
    others: others.map((other) => other.workspace),
    mainRules: main.created,
  };
}
