// What an import does with each checked record: its id here, create or replace, its group, its row.
import type { Db, GroupRow, RuleRow } from '../../db/tables.js';
import { nextTimestamp, randomSuffix } from '../../ids.js';
import { GROUP_ID_PATTERN } from '../groups/groups-schemas.js';
import type { Principal } from '../keys/keys-store.js';
import type { FailedRecord, ReadRecord } from './import-records.js';
import type { ImportItem } from './transfer-schemas.js';
import type { ExistingRow, ImportWrites, TransferStore } from './transfer-store.js';

export type ImportMode = 'copy' | 'overwrite';

type GroupRecord = Extract<ReadRecord, { kind: 'group' }>;
type RuleRecord = Extract<ReadRecord, { kind: 'rule' }>;

export interface ImportPlan {
  items: ImportItem[];
  writes: ImportWrites;
  failures: FailedRecord[];
}

/**
 * Decides, inside the import's transaction, the id and outcome of every record (decision 12): groups
 * first, so that rules' groupIds can point at the groups' ids here. Writes nothing itself.
 */
export async function planImport(
  trx: Db,
  store: TransferStore,
  principal: Principal,
  records: ReadRecord[],
  mode: ImportMode,
): Promise<ImportPlan> {
  const groups = records.filter((r): r is GroupRecord => r.kind === 'group');
  const rules = records.filter((r): r is RuleRecord => r.kind === 'rule');
  const failures = records.filter((r): r is FailedRecord => r.kind === 'failed');
  const sourceIds = (list: ReadRecord[]) => list.flatMap((r) => (r.sourceId === null ? [] : [r.sourceId]));
  const referenced = rules.flatMap((r) => (r.write.groupId ? [r.write.groupId] : []));
  const existingGroups = await store.existingGroups(trx, [
    ...(mode === 'overwrite' ? sourceIds(groups) : []),
    ...referenced,
  ]);
  const existingRules = mode === 'overwrite' ? await store.existingRules(trx, sourceIds(rules)) : new Map();
  const mine = (row: ExistingRow | undefined) =>
    row?.workspace_id === principal.workspaceId ? row : undefined;

  const taken = new Set<string>();
  const fresh: string[] = [];
  /** The record's own id when the mode allows it and it is free, else a new one. */
  function idFor(record: ReadRecord, prefix: string, form: RegExp, existing: Map<string, ExistingRow>) {
    const own = record.sourceId;
    const replaces =
      mode === 'overwrite' && own !== null && !taken.has(own) ? mine(existing.get(own)) : undefined;
    let id = own;
    if (
      !replaces &&
      !(mode === 'overwrite' && own !== null && form.test(own) && !existing.has(own) && !taken.has(own))
    ) {
      do id = `${prefix}_${randomSuffix()}`;
      while (taken.has(id));
      fresh.push(id);
    }
    taken.add(id as string);
    return { id: id as string, replaces };
  }

  const now = Date.now();
  const user = principal.userId;
  const writes: ImportWrites = { groupInserts: [], groupUpdates: [], ruleInserts: [], ruleUpdates: [] };
  const items: ImportItem[] = [];
  const groupIds = new Map<string, string>();
  const item = (r: ReadRecord, objectType: 'rule' | 'group', id: string, outcome: 'created' | 'updated') =>
    items.push({ index: r.index, objectType, sourceId: r.sourceId, id, outcome, warnings: r.warnings });

  for (const group of groups) {
    const { id, replaces } = idFor(group, 'Group', GROUP_ID_PATTERN, existingGroups);
    if (group.sourceId !== null && !groupIds.has(group.sourceId)) groupIds.set(group.sourceId, id);
    const row: GroupRow = {
      id,
      workspace_id: principal.workspaceId,
      name: group.write.name ?? '',
      status: group.write.status ?? 'Active',
      is_favourite: group.write.isFavourite ? 1 : 0,
      created_by: replaces?.created_by ?? user,
      last_modified_by: user,
      creation_date: replaces?.creation_date ?? group.creationDate ?? now,
      modification_date: replaces ? nextTimestamp(replaces.modification_date) : now,
    };
    (replaces ? writes.groupUpdates : writes.groupInserts).push(row);
    item(group, 'group', id, replaces ? 'updated' : 'created');
  }

  for (const rule of rules) {
    const ruleType = rule.write.ruleType as string;
    const own =
      mode === 'overwrite' && rule.sourceId !== null ? mine(existingRules.get(rule.sourceId)) : undefined;
    if (own && own.rule_type !== ruleType && !taken.has(own.id)) {
      failures.push(typeChange(rule, own));
      continue;
    }
    const { id, replaces } = idFor(
      rule,
      ruleType,
      new RegExp(`^${ruleType}_[A-Za-z0-9]{1,32}$`),
      existingRules,
    );
    const groupId = rule.write.groupId ? groupFor(rule, rule.write.groupId) : null;
    const name = rule.write.name ?? '';
    const row: RuleRow = {
      id,
      workspace_id: principal.workspaceId,
      name,
      name_search: name.toLowerCase(),
      description: rule.write.description ?? '',
      status: rule.write.status ?? 'Inactive',
      rule_type: ruleType,
      group_id: groupId,
      pairs: JSON.stringify(rule.pairs),
      created_by: replaces?.created_by ?? user,
      last_modified_by: user,
      creation_date: replaces?.creation_date ?? rule.creationDate ?? now,
      modification_date: replaces ? nextTimestamp(replaces.modification_date) : now,
    };
    (replaces ? writes.ruleUpdates : writes.ruleInserts).push(row);
    item(rule, 'rule', id, replaces ? 'updated' : 'created');
  }

  /** A rule's group here: the one imported for it, or one of this workspace; else it goes ungrouped. */
  function groupFor(rule: RuleRecord, sent: string): string | null {
    const imported = groupIds.get(sent);
    if (imported) return imported;
    if (mine(existingGroups.get(sent))) return sent;
    rule.warnings.push(`group "${sent}" is neither in the file nor in this workspace: imported ungrouped`);
    return null;
  }

  await replaceTakenIds(trx, store, writes, fresh, items);
  return { items, writes, failures };
}

function typeChange(rule: RuleRecord, own: ExistingRow): FailedRecord {
  const path = `/${rule.index}/ruleType`;
  const message = `the rule ${own.id} here is of type "${own.rule_type}", and a rule's type cannot change`;
  return {
    ...rule,
    kind: 'failed',
    objectType: 'rule',
    message: 'Rule Type update not allowed',
    details: [{ path, message }],
  };
}

/** New ids are random: the few that an object outside this import already has are drawn again. */
async function replaceTakenIds(
  trx: Db,
  store: TransferStore,
  writes: ImportWrites,
  fresh: string[],
  items: ImportItem[],
): Promise<void> {
  const inUse = new Set([...writes.groupInserts, ...writes.ruleInserts].map((row) => row.id));
  let candidates = fresh;
  while (candidates.length > 0) {
    const clashes = new Set([
      ...(await store.existingGroups(trx, candidates)).keys(),
      ...(await store.existingRules(trx, candidates)).keys(),
    ]);
    const renamed = new Map<string, string>();
    for (const id of clashes) {
      const prefix = id.slice(0, id.lastIndexOf('_'));
      let next: string;
      do next = `${prefix}_${randomSuffix()}`;
      while (inUse.has(next));
      inUse.add(next);
      renamed.set(id, next);
    }
    if (renamed.size === 0) return;
    const rename = (id: string) => renamed.get(id) ?? id;
    for (const row of writes.groupInserts) row.id = rename(row.id);
    for (const row of [...writes.ruleInserts, ...writes.ruleUpdates]) {
      row.id = rename(row.id);
      if (row.group_id !== null) row.group_id = rename(row.group_id);
    }
    for (const item of items) if (item.id !== null) item.id = rename(item.id);
    candidates = [...renamed.values()];
  }
}
