// What an import does with each checked record: its id here, create or replace, its group, its row.
import type { Db, GroupRow, RuleRow } from '../../db/tables.js';
import { nextTimestamp, randomSuffix } from '../../ids.js';
import { GROUP_ID_PATTERN } from '../../model/group.js';
import type { Principal } from '../../model/principal.js';
import { ruleIdPattern } from '../../model/rule.js';
import type { FailedRecord, ReadRecord } from './import-records.js';
import type { ImportItem } from './transfer-schemas.js';
import type { ExistingRow, ImportWrites, TransferStore } from './transfer-store.js';

export type ImportMode = 'copy' | 'overwrite';

type GroupRecord = Extract<ReadRecord, { kind: 'group' }>;
type RuleRecord = Extract<ReadRecord, { kind: 'rule' }>;

/** What one batch of records becomes: its rows to write, its report items, its records that failed. */
export interface ImportPlan {
  items: ImportItem[];
  writes: ImportWrites;
  failures: FailedRecord[];
}

/**
 * Decides, inside the import's transaction, the id and outcome of every record (decision 12). The
 * import plans every group first, so that rules' groupIds can point at the groups' ids here, then
 * its rules a batch at a time; the planner remembers across batches only the ids it has given.
 * Writes nothing itself.
 */
export function createImportPlanner(trx: Db, store: TransferStore, principal: Principal, mode: ImportMode) {
  const taken = new Set<string>();
  const groupIds = new Map<string, string>();
  const now = Date.now();
  const user = principal.userId;
  const mine = (row: ExistingRow | undefined) =>
    row?.workspace_id === principal.workspaceId ? row : undefined;
  const sourceIds = (list: ReadRecord[]) => list.flatMap((r) => (r.sourceId === null ? [] : [r.sourceId]));
  /** Who and when, for a new object or one it replaces (which keeps its creator and creation date). */
  const stamps = (record: ReadRecord, replaces: ExistingRow | undefined) => ({
    created_by: replaces?.created_by ?? user,
    last_modified_by: user,
    creation_date: replaces?.creation_date ?? record.creationDate ?? now,
    modification_date: replaces ? nextTimestamp(replaces.modification_date) : now,
  });

  /** One batch's state: its fresh ids are checked against the database before it is written. */
  function batch() {
    const fresh: string[] = [];
    const plan: ImportPlan = {
      items: [],
      writes: { groupInserts: [], groupUpdates: [], ruleInserts: [], ruleUpdates: [] },
      failures: [],
    };
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
    function item(r: ReadRecord, objectType: 'rule' | 'group', id: string, replaces: unknown) {
      const outcome = replaces ? 'updated' : 'created';
      plan.items.push({
        index: r.index,
        objectType,
        sourceId: r.sourceId,
        id,
        outcome,
        warnings: r.warnings,
      });
    }
    const done = async () => {
      const renamed = await replaceTakenIds(trx, store, plan, fresh, taken);
      for (const [sent, id] of groupIds) groupIds.set(sent, renamed.get(id) ?? id);
      return plan;
    };
    return { plan, idFor, item, done };
  }

  return {
    /** Every group of the file, at once (groups are few, and rules need all of their ids). */
    async groups(groups: GroupRecord[]): Promise<ImportPlan> {
      const existing = await store.existingGroups(trx, mode === 'overwrite' ? sourceIds(groups) : []);
      const { plan, idFor, item, done } = batch();
      for (const group of groups) {
        const { id, replaces } = idFor(group, 'Group', GROUP_ID_PATTERN, existing);
        if (group.sourceId !== null && !groupIds.has(group.sourceId)) groupIds.set(group.sourceId, id);
        const row: GroupRow = {
          id,
          workspace_id: principal.workspaceId,
          name: group.write.name ?? '',
          status: group.write.status ?? 'Active',
          is_favourite: group.write.isFavourite ? 1 : 0,
          ...stamps(group, replaces),
        };
        (replaces ? plan.writes.groupUpdates : plan.writes.groupInserts).push(row);
        item(group, 'group', id, replaces);
      }
      return done();
    },

    /** A batch of rules, after the groups. */
    async rules(rules: RuleRecord[]): Promise<ImportPlan> {
      const unknownGroups = rules.flatMap((r) =>
        r.write.groupId && !groupIds.has(r.write.groupId) ? [r.write.groupId] : [],
      );
      const existingGroups = await store.existingGroups(trx, unknownGroups);
      const existing = mode === 'overwrite' ? await store.existingRules(trx, sourceIds(rules)) : new Map();
      const { plan, idFor, item, done } = batch();

      /** A rule's group here: the one imported for it, or one of this workspace; else it goes ungrouped. */
      function groupFor(rule: RuleRecord, sent: string): string | null {
        const imported = groupIds.get(sent);
        if (imported) return imported;
        if (mine(existingGroups.get(sent))) return sent;
        rule.warnings.push(
          `group "${sent}" is neither in the file nor in this workspace: imported ungrouped`,
        );
        return null;
      }

      for (const rule of rules) {
        const ruleType = rule.write.ruleType as string;
        const own =
          mode === 'overwrite' && rule.sourceId !== null ? mine(existing.get(rule.sourceId)) : undefined;
        if (own && own.rule_type !== ruleType && !taken.has(own.id)) {
          plan.failures.push(typeChange(rule, own));
          continue;
        }
        const form = new RegExp(ruleIdPattern(ruleType));
        const { id, replaces } = idFor(rule, ruleType, form, existing);
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
          ...stamps(rule, replaces),
        };
        (replaces ? plan.writes.ruleUpdates : plan.writes.ruleInserts).push(row);
        item(rule, 'rule', id, replaces);
      }
      return done();
    },
  };
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

/**
 * New ids are random: the few that an object outside this import already has are drawn again.
 * Answers what was renamed, old id to new.
 */
async function replaceTakenIds(
  trx: Db,
  store: TransferStore,
  { writes, items }: ImportPlan,
  fresh: string[],
  taken: Set<string>,
): Promise<Map<string, string>> {
  const renamed = new Map<string, string>();
  const origins = new Map<string, string>(); // a drawn id, to the id it replaces
  let candidates = fresh;
  while (candidates.length > 0) {
    const clashes = new Set([
      ...(await store.existingGroups(trx, candidates)).keys(),
      ...(await store.existingRules(trx, candidates)).keys(),
    ]);
    const round = new Map<string, string>();
    for (const id of clashes) {
      const prefix = id.slice(0, id.lastIndexOf('_'));
      let next: string;
      do next = `${prefix}_${randomSuffix()}`;
      while (taken.has(next));
      taken.add(next);
      round.set(id, next);
    }
    if (round.size === 0) break;
    const rename = (id: string) => round.get(id) ?? id;
    for (const row of writes.groupInserts) row.id = rename(row.id);
    for (const row of [...writes.ruleInserts, ...writes.ruleUpdates]) {
      row.id = rename(row.id);
      if (row.group_id !== null) row.group_id = rename(row.group_id);
    }
    for (const item of items) if (item.id !== null) item.id = rename(item.id);
    for (const [id, next] of round) {
      const first = origins.get(id) ?? id;
      renamed.set(first, next);
      origins.set(next, first);
    }
    candidates = [...round.values()];
  }
  return renamed;
}
