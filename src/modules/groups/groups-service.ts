// The rules of groups: validation, workspace access, ungrouping on delete.
import type { Db, GroupRow } from '../../db/tables.js';
import { checkInOrder, GROUPS, ifMatchHolds, readNowThrowLater } from '../../http/checks.js';
import { readListQuery } from '../../http/list.js';
import type { Created, Page } from '../../http/replies.js';
import { nextTimestamp } from '../../ids.js';
import { type Group, type GroupListItem, toGroup } from '../../model/group.js';
import type { Principal } from '../../model/principal.js';
import { toRule } from '../../model/rule.js';
import type { ChangesService, Recorded } from '../changes/changes-service.js';
import type { IdempotencyService } from '../idempotency/idempotency-service.js';
import { drawId } from '../shared/id-owners-store.js';
import { readGroupWrite } from './groups-input.js';
import { checkGroupListQuery } from './groups-schemas.js';
import type { GroupsStore } from './groups-store.js';

export function createGroupsService({
  db,
  groupsStore,
  idempotency,
  changes,
}: {
  db: Db;
  groupsStore: GroupsStore;
  idempotency: IdempotencyService;
  changes: Pick<ChangesService, 'record'>;
}) {
  return {
    async get(principal: Principal, id: string): Promise<Group> {
      const { row } = await checkInOrder(principal, id, {
        kind: GROUPS,
        find: () => groupsStore.find(db, id),
      });
      return toGroup(row, principal);
    },

    async list(principal: Principal, query: unknown): Promise<Page<GroupListItem>> {
      const { offset, pageSize } = readListQuery(query, checkGroupListQuery);
      const [rows, total] = await Promise.all([
        groupsStore.list(principal.workspaceId, offset, pageSize),
        groupsStore.count(principal.workspaceId),
      ]);
      const counts = await groupsStore.ruleCounts(rows.map((row) => row.id));
      const items = rows.map((row) => {
        const count = counts.get(row.id);
        return {
          ...toGroup(row, principal),
          ruleCount: count?.total ?? 0,
          activeRuleCount: count?.active ?? 0,
        };
      });
      return { items, total, offset };
    },

    async create(principal: Principal, body: unknown, idempotencyKey?: string): Promise<Created<Group>> {
      const input = readGroupWrite(body, true);
      // Set once the change is recorded; a replay records nothing.
      let revision: number | undefined;
      const created = await idempotency.create(
        principal,
        idempotencyKey,
        ['POST /v1/groups', body],
        async (trx) => {
          const now = Date.now();
          const row: GroupRow = {
            id: '',
            workspace_id: principal.workspaceId,
            name: input.name ?? '',
            status: input.status ?? 'Active',
            is_favourite: input.isFavourite ? 1 : 0,
            created_by: principal.userId,
            last_modified_by: principal.userId,
            creation_date: now,
            modification_date: now,
          };
          row.id = await drawId(trx, principal.workspaceId, 'group', 'Group');
          await groupsStore.insert(trx, row);
          const group = toGroup(row, principal);
          revision = await changes.record(trx, principal, [
            { objectType: 'group', id: row.id, change: 'created', object: group, drawn: true },
          ]);
          return group;
        },
      );
      return { ...created, revision };
    },

    async update(
      principal: Principal,
      id: string,
      body: unknown,
      ifMatch?: string,
    ): Promise<Recorded<Group>> {
      const input = readNowThrowLater(() => readGroupWrite(body, false));
      return db.transaction().execute(async (trx) => {
        const { row, body: change } = await checkInOrder(principal, id, {
          kind: GROUPS,
          find: () => groupsStore.find(trx, id, true),
          precondition: ifMatchHolds(ifMatch),
          body: input,
        });
        const updated: GroupRow = {
          ...row,
          name: change.name ?? row.name,
          status: change.status ?? row.status,
          is_favourite: change.isFavourite === undefined ? row.is_favourite : change.isFavourite ? 1 : 0,
          last_modified_by: principal.userId,
          modification_date: nextTimestamp(row.modification_date),
        };
        await groupsStore.update(trx, id, updated);
        const group = toGroup(updated, principal);
        const revision = await changes.record(trx, principal, [
          { objectType: 'group', id, change: 'updated', object: group },
        ]);
        return { data: group, revision };
      });
    },

    async remove(principal: Principal, id: string, ifMatch?: string): Promise<Recorded<string>> {
      return db.transaction().execute(async (trx) => {
        const { row } = await checkInOrder(principal, id, {
          kind: GROUPS,
          find: () => groupsStore.find(trx, id, true),
          precondition: ifMatchHolds(ifMatch),
        });
        const rules = await groupsStore.deleteAndUngroup(trx, id, principal.userId, Date.now());
        // The ungrouped rules changed too: followers and their history must see it.
        const revision = await changes.record(trx, principal, [
          { objectType: 'group', id, change: 'deleted', object: toGroup(row, principal) },
          ...rules.map((rule) => ({
            objectType: 'rule' as const,
            id: rule.id,
            change: 'updated' as const,
            object: toRule(rule, principal),
          })),
        ]);
        const ungrouped = rules.length;
        return {
          data: `Group deleted successfully; ${ungrouped} rule${ungrouped === 1 ? '' : 's'} ungrouped`,
          revision,
        };
      });
    },
  };
}

export type GroupsService = ReturnType<typeof createGroupsService>;
