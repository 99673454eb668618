// Seeding the --scale database straight into the SQLite file: a million rules through the API would take
// most of an hour. The rows mirror what the service writes (src/db/migrations, rules-service.ts
// create()): the same columns, ids of the same form, pairs normalised by the rule types' own code with
// a pair id each. The CLI creates the schema and the one API key first.
import Database from 'better-sqlite3';
import { ruleSearchText } from '../../src/model/rule-search.js';
import { checkPairs, type RuleType } from '../../src/model/rule-types/index.js';
import { ruleBody } from './rule-bodies.js';
import { issueKey } from './seed-api.js';

export interface ScaleSize {
  rules: number;
  workspaces: number;
  rulesPerOtherWorkspace: number;
}

export interface ScaleDatabase {
  databaseUrl: string;
  key: string;
  /** Ids of the big workspace's rules, 1000 spread over all of them. */
  sampleIds: string[];
  rulesTotal: number;
  seedSeconds: number;
}

const SPACE = 36 ** 5;

/** The n-th of distinct 5-character [0-9a-z] suffixes, scattered like random ones (48271 is prime to 36). */
function suffix(n: number): string {
  return (((n + 1) * 48_271) % SPACE).toString(36).padStart(5, '0');
}

const normalised = new Map<number, Record<string, unknown>[]>();

/**
 * Body n's pairs as the service stores them: normalised by the rule type's code, each with an id. A
 * body's pairs depend on n modulo 30 only (see ruleBody), so each kind is normalised once.
 */
function storedPairs(n: number, id: number, ruleType: RuleType, pairs: Record<string, unknown>[]): string {
  let canonical = normalised.get(n % 30);
  if (!canonical) {
    const checked = checkPairs(ruleType, pairs, { maxDelayMs: 60_000 });
    if (checked.details.length > 0) throw new Error(`invalid seed pairs: ${JSON.stringify(checked.details)}`);
    canonical = checked.pairs;
    normalised.set(n % 30, canonical);
  }
  return JSON.stringify(canonical.map((pair, i) => ({ id: suffix(id * 3 + i + 7), ...pair })));
}

export async function seedScaleDatabase(file: string, size: ScaleSize): Promise<ScaleDatabase> {
  const databaseUrl = `sqlite:${file}`;
  const started = performance.now();
  const big = await issueKey(databaseUrl, 'scale-big', 'scale-admin');
  const db = new Database(file);
  // Bulk load: no WAL (the service turns it back on) and no fsync; a crash here only loses the seed.
  db.pragma('journal_mode = DELETE');
  db.pragma('synchronous = OFF');
  db.pragma('cache_size = -524288');
  const insertUser = db.prepare('insert into users (id, name, created_at) values (?, ?, ?)');
  const insertWorkspace = db.prepare(
    'insert into workspaces (id, name, owner_user_id, created_at) values (?, ?, ?, ?)',
  );
  const insertGroup = db.prepare(
    `insert into groups (id, workspace_id, name, status, is_favourite, created_by, last_modified_by,
       creation_date, modification_date) values (?, ?, ?, 'Active', 0, ?, ?, ?, ?)`,
  );
  const insertRule = db.prepare(
    `insert into rules (id, workspace_id, name, name_search, search_text, description, status, rule_type,
       group_id, pairs, created_by, last_modified_by, creation_date, modification_date)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );

  const others = size.workspaces - 1;
  const rulesTotal = size.rules + others * size.rulesPerOtherWorkspace;
  const start = Date.now() - rulesTotal - 1000;
  let ruleNumber = 0;
  const addRule = (workspaceId: string, userId: string, n: number, groupIds: string[]) => {
    const body = ruleBody(n, groupIds);
    const at = start + ruleNumber;
    insertRule.run(
      `${body.ruleType}_${suffix(ruleNumber)}`,
      workspaceId,
      body.name,
      body.name.toLowerCase(),
      ruleSearchText(body.name, body.description ?? '', body.pairs as unknown[]),
      body.description ?? '',
      body.status,
      body.ruleType,
      body.groupId ?? null,
      storedPairs(n, ruleNumber, body.ruleType, body.pairs),
      userId,
      userId,
      at,
      at,
    );
    ruleNumber += 1;
  };

  const sampleNumbers = new Set(
    Array.from({ length: Math.min(1000, size.rules) }, (_, i) =>
      Math.floor((i * size.rules) / Math.min(1000, size.rules)),
    ),
  );
  const sampleIds: string[] = [];
  db.transaction(() => {
    const groupIds = Array.from({ length: 100 }, (_, i) => `Group_g${i.toString(36).padStart(4, '0')}`);
    groupIds.forEach((id, i) => {
      insertGroup.run(id, big.workspaceId, `scale group ${i + 1}`, big.userId, big.userId, start, start);
    });
    for (let i = 0; i < size.rules; i++) {
      if (sampleNumbers.has(i)) sampleIds.push(`${ruleBody(i).ruleType}_${suffix(ruleNumber)}`);
      addRule(big.workspaceId, big.userId, i, groupIds);
    }
    for (let w = 1; w <= others; w++) {
      const userId = `usr_${suffix(w)}${String(w).padStart(7, '0')}`;
      const workspaceId = `ws_${suffix(w)}${String(w).padStart(7, '0')}`;
      insertUser.run(userId, `scale-user-${w}`, start);
      insertWorkspace.run(workspaceId, `scale-ws-${w}`, userId, start);
      for (let i = 0; i < size.rulesPerOtherWorkspace; i++) addRule(workspaceId, userId, w * 31 + i, []);
    }
  })();
  db.pragma('journal_mode = WAL');
  db.close();
  return {
    databaseUrl,
    key: big.key,
    sampleIds,
    rulesTotal,
    seedSeconds: (performance.now() - started) / 1000,
  };
}
