// The rules of groups: validation, workspace access, ungrouping on delete.
import type { Db, GroupRow } from '../../db/tables.js';
import { checkInOrder, GROUPS, ifMatchHolds, readNowThrowLater } from '../../http/checks.js';
import { readListQuery } from '../../http/list.js';
import type { Created, Page } from '../../http/replies.js';
import { nextTimestamp } from '../../ids.js';
import { type Group, type GroupListItem, type GroupWrite, toGroup } from '../../model/group.js';
import type { Principal } from '../../model/principal.js';
import { toRule } from '../../model/rule.js';
import type { ChangeInput, ChangesService, Recorded } from '../changes/changes-service.js';
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
  /** A new group from a checked body, written in `trx`; answers its change (not recorded). */
  async function insertGroup(trx: Db, principal: Principal, input: GroupWrite): Promise<ChangeInput> {
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
    return {
      objectType: 'group',
      id: row.id,
      change: 'created',
      object: toGroup(row, principal),
      drawn: true,
    };
  }

  /** The group `id` changed in `trx`, in the order of checks; answers its change (not recorded). */
  async function updateGroup(
    trx: Db,
    principal: Principal,
    id: string,
    input: () => GroupWrite,
    ifMatch?: string,
  ): Promise<ChangeInput> {
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
    return { objectType: 'group', id, change: 'updated', object: toGroup(updated, principal) };
  }

  /** The group `id` deleted in `trx` and its rules ungrouped; answers its change first, then theirs. */
  async function removeGroup(
    trx: Db,
    principal: Principal,
    id: string,
    ifMatch?: string,
  ): Promise<ChangeInput[]> {
    const { row } = await checkInOrder(principal, id, {
      kind: GROUPS,
      find: () => groupsStore.find(trx, id, true),
      precondition: ifMatchHolds(ifMatch),
    });
    const rules = await groupsStore.deleteAndUngroup(trx, id, principal.userId, Date.now());
    // The ungrouped rules changed too: followers and their history must see it.
    return [
      { objectType: 'group', id, change: 'deleted', object: toGroup(row, principal) },
      ...rules.map((rule) => ({
        objectType: 'rule' as const,
        id: rule.id,
        change: 'updated' as const,
        object: toRule(rule, principal),
      })),
    ];
  }

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
          const change = await insertGroup(trx, principal, input);
          revision = await changes.record(trx, principal, [change]);
          return change.object as Group;
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
        const change = await updateGroup(trx, principal, id, input, ifMatch);
        const revision = await changes.record(trx, principal, [change]);
        return { data: change.object as Group, revision };
      });
    },

    async remove(principal: Principal, id: string, ifMatch?: string): Promise<Recorded<string>> {
      return db.transaction().execute(async (trx) => {
        const written = await removeGroup(trx, principal, id, ifMatch);
        const revision = await changes.record(trx, principal, written);
        const ungrouped = written.length - 1;
        return {
          data: `Group deleted successfully; ${ungrouped} rule${ungrouped === 1 ? '' : 's'} ungrouped`,
          revision,
        };
      });
    },

    /**
     * The same writes inside the caller's transaction, checked as the routes check them and recording
     * nothing: each answers its changes, for the caller to record (a change request's merge).
     */
    inTransaction: {
      create: async (trx: Db, principal: Principal, body: unknown) => [
        await insertGroup(trx, principal, readGroupWrite(body, true)),
      ],
      update: async (trx: Db, principal: Principal, id: string, body: unknown) => [
        await updateGroup(
          trx,
          principal,
          id,
          readNowThrowLater(() => readGroupWrite(body, false)),
        ),
      ],
      remove: (trx: Db, principal: Principal, id: string) => removeGroup(trx, principal, id),
    },
  };
}

export type GroupsService = ReturnType<typeof createGroupsService>;
