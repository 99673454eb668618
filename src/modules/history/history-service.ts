// History and restore: every kept version of a rule or group, and bringing one back as a new version,
// also for an object that was deleted (its id stays its workspace's: ids are never reused).
import type { Db, GroupRow, RuleRow } from '../../db/tables.js';
import { AppError, type ErrorCode } from '../../errors.js';
import { checkInOrder, GROUPS, RULES, readNowThrowLater, type StoredKind } from '../../http/checks.js';
import { readListQuery } from '../../http/list.js';
import { readPayload } from '../../http/payload.js';
import type { Page } from '../../http/replies.js';
import { nextTimestamp } from '../../ids.js';
import type { Group } from '../../model/group.js';
import { toGroup } from '../../model/group.js';
import type { Principal } from '../../model/principal.js';
import type { Rule } from '../../model/rule.js';
import { cspColumn, toRule } from '../../model/rule.js';
import { ruleSearchText } from '../../model/rule-search.js';
import type { ChangesService, Recorded } from '../changes/changes-service.js';
import type { GroupsStore } from '../groups/groups-store.js';
import type { RulesStore } from '../rules/rules-store.js';
import { idOwner } from '../shared/id-owners-store.js';
import { checkDeletedListQuery, checkRestoreBody } from './history-schemas.js';
import type { HistoryStore, ObjectType } from './history-store.js';

export interface Version {
  version: number;
  revision: number;
  change: 'created' | 'updated' | 'deleted';
  at: number;
  by: string;
  byName: string | null;
  changeRequestId?: string;
  reviewBypassed?: true;
  object: unknown;
}

/** A deleted rule that can be restored, and the version that restores it as it was. */
export interface DeletedRule {
  id: string;
  name: string;
  ruleType: Rule['ruleType'];
  deletedAt: number;
  deletedBy: string;
  deletedByName: string | null;
  version: number;
  rule: Rule;
}

const KINDS = {
  rule: { ...RULES, payload: 'RULE_PAYLOAD_INVALID' },
  group: { ...GROUPS, payload: 'GROUP_PAYLOAD_INVALID' },
} as const satisfies Record<ObjectType, StoredKind & { payload: ErrorCode }>;

const NOTHING_IGNORED = new Set<string>();

export function createHistoryService(deps: {
  db: Db;
  store: HistoryStore;
  rulesStore: RulesStore;
  groupsStore: GroupsStore;
  changes: Pick<ChangesService, 'record'>;
}) {
  const { db, store, rulesStore, groupsStore, changes } = deps;

  const findLive = (trx: Db, objectType: ObjectType, id: string, lock = false) =>
    objectType === 'rule' ? rulesStore.find(trx, id, lock) : groupsStore.find(trx, id, lock);

  /**
   * An object exists while it lives (for every workspace: another's is 403), or, once deleted, for
   * the workspace that owns its id while it has kept versions there; for any other workspace a
   * deleted object does not exist (404). Answers its workspace, and the live row if any.
   */
  async function findLiveOrKept(
    trx: Db,
    principal: Principal,
    objectType: ObjectType,
    id: string,
    lock = false,
  ) {
    const live = await findLive(trx, objectType, id, lock);
    if (live) return { workspace_id: live.workspace_id, live };
    const mine = principal.workspaceId;
    if ((await idOwner(trx, id)) !== mine || !(await store.hasHistory(trx, mine, objectType, id)))
      return undefined;
    return { workspace_id: mine, live };
  }

  /** The content of `version`, after the order of checks (body last). */
  async function versionToRestore(
    trx: Db,
    principal: Principal,
    objectType: ObjectType,
    id: string,
    body: unknown,
  ) {
    const kind = KINDS[objectType];
    const { row, body: input } = await checkInOrder(principal, id, {
      kind,
      find: () => findLiveOrKept(trx, principal, objectType, id, true),
      body: readNowThrowLater(() => readPayload(body, checkRestoreBody, kind.payload, NOTHING_IGNORED)),
    });
    const { live } = row;
    const record = await store.version(trx, principal.workspaceId, objectType, id, input.version);
    if (!record)
      throw new AppError('VERSION_NOT_FOUND', [{ path: '/version', message: 'no such kept version' }]);
    return { live, content: JSON.parse(record.object) as unknown };
  }

  return {
    /** Every kept version, newest first. */
    async versions(principal: Principal, objectType: ObjectType, id: string): Promise<Version[]> {
      await checkInOrder(principal, id, {
        kind: KINDS[objectType],
        find: () => findLiveOrKept(db, principal, objectType, id),
      });
      const rows = await store.versions(principal.workspaceId, objectType, id);
      return rows.map((row) => ({
        version: row.version,
        revision: Number(row.revision),
        change: row.change,
        at: Number(row.at),
        by: row.by_user,
        byName: row.by_name,
        ...(row.change_request_id ? { changeRequestId: row.change_request_id } : {}),
        ...(row.review_bypassed ? { reviewBypassed: true as const } : {}),
        object: JSON.parse(row.object),
      }));
    },

    /** The workspace's deleted rules that can be restored, most recently deleted first, a page at a time. */
    async deletedRules(principal: Principal, query: unknown): Promise<Page<DeletedRule>> {
      const { offset, pageSize } = readListQuery(query, checkDeletedListQuery);
      const [rows, total] = await Promise.all([
        store.deleted(principal.workspaceId, 'rule', offset, pageSize),
        store.deletedCount(principal.workspaceId, 'rule'),
      ]);
      const items = rows.map((row) => {
        const rule = JSON.parse(row.object) as Rule;
        return {
          id: row.object_id,
          name: rule.name,
          ruleType: rule.ruleType,
          deletedAt: Number(row.at),
          deletedBy: row.by_user,
          deletedByName: row.by_name,
          version: row.version,
          rule,
        };
      });
      return { items, total, offset };
    },

    /** Makes a rule's version current; a group it was in that is gone (or not ours) leaves it ungrouped. */
    async restoreRule(principal: Principal, id: string, body: unknown): Promise<Recorded<Rule>> {
      return db.transaction().execute(async (trx) => {
        const found = await versionToRestore(trx, principal, 'rule', id, body);
        const live = found.live as RuleRow | undefined;
        const old = found.content as Rule;
        const group = old.groupId ? await groupsStore.find(trx, old.groupId, true) : undefined;
        const row: RuleRow = {
          id,
          workspace_id: principal.workspaceId,
          name: old.name,
          name_search: old.name.toLowerCase(),
          search_text: ruleSearchText(old.name, old.description, old.pairs),
          description: old.description,
          status: old.status,
          rule_type: live?.rule_type ?? old.ruleType,
          group_id: group?.workspace_id === principal.workspaceId ? group.id : null,
          pairs: JSON.stringify(old.pairs),
          // A version recorded before these fields: not pinned, and Requestly's default.
          is_favourite: old.isFavourite ? 1 : 0,
          remove_csp_header: cspColumn(live?.rule_type ?? old.ruleType, old.removeCSPHeader),
          created_by: live?.created_by ?? old.createdBy,
          last_modified_by: principal.userId,
          creation_date: live?.creation_date ?? old.creationDate,
          modification_date: nextTimestamp(live?.modification_date ?? old.modificationDate),
        };
        if (live) await rulesStore.update(trx, row);
        else if (!(await rulesStore.insert(trx, row))) throw new AppError('RESTORE_CONFLICT');
        const rule = toRule(row, principal, old.pairs as Record<string, unknown>[]);
        const revision = await changes.record(trx, principal, [
          { objectType: 'rule', id, change: live ? 'updated' : 'created', object: rule },
        ]);
        return { data: rule, revision };
      });
    },

    async restoreGroup(principal: Principal, id: string, body: unknown): Promise<Recorded<Group>> {
      return db.transaction().execute(async (trx) => {
        const found = await versionToRestore(trx, principal, 'group', id, body);
        const live = found.live as GroupRow | undefined;
        const old = found.content as Group;
        const row: GroupRow = {
          id,
          workspace_id: principal.workspaceId,
          name: old.name,
          status: old.status,
          is_favourite: old.isFavourite ? 1 : 0,
          created_by: live?.created_by ?? old.createdBy,
          last_modified_by: principal.userId,
          creation_date: live?.creation_date ?? old.creationDate,
          modification_date: nextTimestamp(live?.modification_date ?? old.modificationDate),
        };
        if (live) await groupsStore.update(trx, id, row);
        else if (!(await groupsStore.insert(trx, row))) throw new AppError('RESTORE_CONFLICT');
        const group = toGroup(row, principal);
        const revision = await changes.record(trx, principal, [
          { objectType: 'group', id, change: live ? 'updated' : 'created', object: group },
        ]);
        return { data: group, revision };
      });
    },
  };
}

export type HistoryService = ReturnType<typeof createHistoryService>;
