// What an import does with each checked record: its id here, create or replace, its group, its row.
import type { Db, GroupRow, RuleRow } from '../../db/tables.js';
import { nextTimestamp } from '../../ids.js';
import { GROUP_ID_PATTERN } from '../../model/group.js';
import type { Principal } from '../../model/principal.js';
import { cspColumn, ruleIdPattern } from '../../model/rule.js';
import { ruleSearchText } from '../../model/rule-search.js';
import { drawIds, idOwners, keepIds, type OwnedType } from '../shared/id-owners-store.js';
import type { FailedRecord, ReadRecord } from './import-records.js';
import type { ImportItem } from './transfer-schemas.js';
import type { ExistingRow, ImportWrites, TransferStore } from './transfer-store.js';

export type ImportMode = 'copy' | 'overwrite';

type GroupRecord = Extract<ReadRecord, { kind: 'group' }>;
/** A batch's ids as the database knows them: live objects (any workspace) and owners (for all time). */
interface Known {
  live: Map<string, ExistingRow>;
  owners: Map<string, string>;
}
type RuleRecord = Extract<ReadRecord, { kind: 'rule' }>;

/** What one batch of records becomes: its rows to write, its report items, its records that failed. */
export interface ImportPlan {
  items: ImportItem[];
  writes: ImportWrites;
  failures: FailedRecord[];
}

/**
 * Decides, inside the import's transaction, the id and outcome of every record. The
 * import plans every group first, so that rules' groupIds can point at the groups' ids here, then
 * its rules a batch at a time; the planner remembers across batches only the ids it has given.
 * Claims the ids it gives for the workspace (unless `claim` is false: a dry run); writes nothing else.
 */
export function createImportPlanner(
  trx: Db,
  store: TransferStore,
  principal: Principal,
  mode: ImportMode,
  claim: boolean,
) {
  const taken = new Set<string>();
  const groupIds = new Map<string, string>();
  const failedGroups = new Map<string, FailedRecord>();
  const now = Date.now();
  const user = principal.userId;
  const workspaceId = principal.workspaceId;
  let placeholders = 0;
  const mine = (row: ExistingRow | undefined) => (row?.workspace_id === workspaceId ? row : undefined);
  const sourceIds = (list: ReadRecord[]) => list.flatMap((r) => (r.sourceId === null ? [] : [r.sourceId]));
  /** Who and when, for a new object or one it replaces (which keeps its creator and creation date). */
  const stamps = (record: ReadRecord, replaces: ExistingRow | undefined) => ({
    created_by: replaces?.created_by ?? user,
    last_modified_by: user,
    creation_date: replaces?.creation_date ?? record.creationDate ?? now,
    modification_date: replaces ? nextTimestamp(replaces.modification_date) : now,
  });

  /**
   * One batch's state. A record that needs a new id gets a placeholder (text no id can hold), and the
   * batch's new ids are drawn together once it is planned; the ids it keeps are claimed then too.
   */
  function batch(objectType: OwnedType, known: Known) {
    const fresh = new Map<string, string>(); // placeholder → prefix
    const kept: string[] = [];
    const plan: ImportPlan = {
      items: [],
      writes: { groupInserts: [], groupUpdates: [], ruleInserts: [], ruleUpdates: [] },
      failures: [],
    };
    /**
     * The record's own id when the mode allows it and the id is this workspace's or no one's ever,
     * else a new one (said in its warnings when its own id was of our form but is not free here).
     */
    function idFor(record: ReadRecord, prefix: string, form: RegExp) {
      const own = record.sourceId;
      const candidate = mode === 'overwrite' && own !== null && !taken.has(own) ? own : null;
      const replaces = candidate === null ? undefined : mine(known.live.get(candidate));
      if (replaces) {
        taken.add(candidate as string);
        return { id: candidate as string, replaces };
      }
      if (candidate !== null && form.test(candidate)) {
        if (!known.live.has(candidate) && (known.owners.get(candidate) ?? workspaceId) === workspaceId) {
          taken.add(candidate);
          kept.push(candidate);
          return { id: candidate, replaces };
        }
        record.warnings.push(notFree(candidate));
      }
      const placeholder = `\u0000${placeholders++}`;
      fresh.set(placeholder, prefix);
      return { id: placeholder, replaces };
    }
    function item(r: ReadRecord, type: 'rule' | 'group', id: string, replaces: unknown) {
      const outcome = replaces ? 'updated' : 'created';
      plan.items.push({
        index: r.index,
        name: r.name,
        objectType: type,
        sourceId: r.sourceId,
        id,
        outcome,
        warnings: r.warnings,
      });
    }
    /** The batch's new ids drawn and its kept ones claimed; one taken meanwhile gets a new one too. */
    const done = async () => {
      const lost = await keepIds(trx, workspaceId, objectType, kept, claim);
      for (const entry of plan.items) {
        if (entry.id !== null && lost.has(entry.id)) {
          entry.warnings.push(notFree(entry.id));
          fresh.set(entry.id, entry.id.slice(0, entry.id.lastIndexOf('_')));
        }
      }
      const drawn = await drawIds(trx, workspaceId, objectType, [...fresh.values()], { taken, claim });
      const named = new Map([...fresh.keys()].map((from, i) => [from, drawn[i] as string]));
      rename(plan, named);
      for (const [sent, id] of groupIds) groupIds.set(sent, named.get(id) ?? id);
      return plan;
    };
    return { plan, idFor, item, done };
  }

  /** What the database knows of the ids a batch names: live objects in any workspace, owners for all time. */
  async function lookUp(
    ids: string[],
    live: (ids: string[]) => Promise<Map<string, ExistingRow>>,
  ): Promise<Known> {
    if (mode !== 'overwrite') return { live: new Map(), owners: new Map() };
    return { live: await live(ids), owners: await idOwners(trx, ids) };
  }

  return {
    /** Every group of the file, at once (groups are few, and rules need all of their ids). */
    async groups(groups: GroupRecord[]): Promise<ImportPlan> {
      const known = await lookUp(sourceIds(groups), (ids) => store.existingGroups(trx, ids));
      const { plan, idFor, item, done } = batch('group', known);
      for (const group of groups) {
        const { id, replaces } = idFor(group, 'Group', GROUP_ID_PATTERN);
        if (group.sourceId !== null && !groupIds.has(group.sourceId)) groupIds.set(group.sourceId, id);
        const row: GroupRow = {
          id,
          workspace_id: workspaceId,
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

    /**
     * A group record of the file that failed: the rules that name it are told so, not that it is missing
     * (which sent the reader looking for a group that was there).
     */
    groupFailed(group: FailedRecord): void {
      if (group.sourceId !== null && !failedGroups.has(group.sourceId))
        failedGroups.set(group.sourceId, group);
    },

    /** A batch of rules, after the groups. */
    async rules(rules: RuleRecord[]): Promise<ImportPlan> {
      const unknownGroups = rules.flatMap((r) =>
        r.write.groupId && !groupIds.has(r.write.groupId) ? [r.write.groupId] : [],
      );
      const existingGroups = await store.existingGroups(trx, unknownGroups);
      const known = await lookUp(sourceIds(rules), (ids) => store.existingRules(trx, ids));
      const { plan, idFor, item, done } = batch('rule', known);

      /** A rule's group here: the one imported for it, or one of this workspace; else it goes ungrouped. */
      function groupFor(rule: RuleRecord, sent: string): string | null {
        const imported = groupIds.get(sent);
        if (imported) return imported;
        if (mine(existingGroups.get(sent))) return sent;
        const failure = failedGroups.get(sent);
        if (failure) {
          rule.warnings.push(
            `its group "${sent}" (record ${failure.index}) failed: ${failure.message}` +
              `${failure.details[0] ? ` (${failure.details[0].path}: ${failure.details[0].message})` : ''}; ` +
              'imported ungrouped',
          );
          return null;
        }
        rule.warnings.push(
          `group "${sent}" is neither in the file nor in this workspace: imported ungrouped`,
        );
        return null;
      }

      for (const rule of rules) {
        const ruleType = rule.write.ruleType as string;
        const own = rule.sourceId !== null ? mine(known.live.get(rule.sourceId)) : undefined;
        if (own && own.rule_type !== ruleType && !taken.has(own.id)) {
          plan.failures.push(typeChange(rule, own));
          continue;
        }
        const form = new RegExp(ruleIdPattern(ruleType));
        const { id, replaces } = idFor(rule, ruleType, form);
        const groupId = rule.write.groupId ? groupFor(rule, rule.write.groupId) : null;
        const name = rule.write.name ?? '';
        const row: RuleRow = {
          id,
          workspace_id: workspaceId,
          name,
          name_search: name.toLowerCase(),
          search_text: ruleSearchText(name, rule.write.description ?? '', rule.pairs),
          description: rule.write.description ?? '',
          status: rule.write.status ?? 'Inactive',
          rule_type: ruleType,
          group_id: groupId,
          pairs: JSON.stringify(rule.pairs),
          is_favourite: rule.write.isFavourite ? 1 : 0,
          remove_csp_header: cspColumn(ruleType, rule.write.removeCSPHeader),
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

/** The warning of a record whose own id another workspace has (or had): it gets a new one. */
const notFree = (id: string) => `the id "${id}" is not free here: imported under a new id`;

/** Gives the planned rows and items their final ids (`named`: old id to new). */
function rename({ writes, items }: ImportPlan, named: Map<string, string>): void {
  if (named.size === 0) return;
  const to = (id: string) => named.get(id) ?? id;
  for (const row of writes.groupInserts) row.id = to(row.id);
  for (const row of [...writes.ruleInserts, ...writes.ruleUpdates]) {
    row.id = to(row.id);
    if (row.group_id !== null) row.group_id = to(row.group_id);
  }
  for (const entry of items) if (entry.id !== null) entry.id = to(entry.id);
}
