// A dry run warns of records that look like rules the workspace already has (same type, name and
// pairs, ids aside): importing a file twice in copy mode would give every rule a twin.
import type { Db } from '../../db/tables.js';
import type { ReadRecord } from './import-records.js';
import type { TransferStore } from './transfer-store.js';

type RuleRecord = Extract<ReadRecord, { kind: 'rule' }>;

/** The value without its `id` fields (pair and modification ids differ between copies of a rule). */
function withoutIds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutIds);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => key !== 'id')
      .map(([key, item]) => [key, withoutIds(item)]),
  );
}

// Canonical pairs normalise to the same bytes, key order included, so their text compares.
const likeness = (ruleType: string, name: string, pairs: unknown) =>
  `${ruleType}\u0000${name}\u0000${JSON.stringify(withoutIds(pairs))}`;

/** Adds a warning to each rule record that looks like a rule already in the workspace. */
export async function warnLikelyDuplicates(
  trx: Db,
  store: TransferStore,
  workspaceId: string,
  rules: RuleRecord[],
): Promise<void> {
  if (rules.length === 0) return;
  const rows = await store.rulesNamed(
    trx,
    workspaceId,
    rules.map((rule) => rule.write.name ?? ''),
  );
  if (rows.length === 0) return;
  const existing = new Map<string, string>();
  for (const row of rows) existing.set(likeness(row.rule_type, row.name, JSON.parse(row.pairs)), row.id);
  for (const rule of rules) {
    const name = rule.write.name ?? '';
    const id = existing.get(likeness(rule.write.ruleType as string, name, rule.pairs));
    // The record that would overwrite that very rule is an update, not a twin.
    if (id === undefined || id === rule.sourceId) continue;
    rule.warnings.push(
      `looks like rule "${name}" (${id}), already in this workspace: same type, name and pairs`,
    );
  }
}
