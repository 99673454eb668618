// The rules of rules: validation by type, workspace access, group references, merging updates.
import type { Config } from '../../config.js';
import { isForeignKeyViolation } from '../../db/dialect.js';
import type { Db, RuleRow } from '../../db/tables.js';
import { AppError } from '../../errors.js';
import { checkInOrder, ifMatchHolds, RULES, referenced, ruleTypeKept } from '../../http/checks.js';
import { readListQuery } from '../../http/list.js';
import type { Created, SerializedOne } from '../../http/replies.js';
import { nextTimestamp } from '../../ids.js';
import type { Principal } from '../../model/principal.js';
import { cspColumn, type Rule, toRule } from '../../model/rule.js';
import { ruleSearchText } from '../../model/rule-search.js';
import type { RuleType } from '../../model/rule-types/index.js';
import type { ChangeInput, ChangesService, Recorded } from '../changes/changes-service.js';
import type { GroupsStore } from '../groups/groups-store.js';
import type { IdempotencyService } from '../idempotency/idempotency-service.js';
import { type RuleInput, readRule } from './rules-input.js';
import type { RulePage, RulesReadModel } from './rules-read-model.js';
import { checkRuleListQuery, RULE_DELETED } from './rules-schemas.js';
import type { RulesStore } from './rules-store.js';

export function createRulesService(deps: {
  db: Db;
  rulesStore: RulesStore;
  /** Where reads go: the store's answers, kept while their data holds. */
  readModel: RulesReadModel;
  groupsStore: GroupsStore;
  idempotency: IdempotencyService;
  changes: Pick<ChangesService, 'record'>;
  config: Pick<Config, 'maxDelayMs'>;
}) {
  const { db, rulesStore, readModel, groupsStore, idempotency, changes } = deps;
  const { maxDelayMs } = deps.config;

  /** `groupId` of a body as stored: null for "", else a group of the caller's workspace (step 8). */
  async function resolveGroup(trx: Db, principal: Principal, groupId: string): Promise<string | null> {
    if (groupId === '') return null;
    const detail = { path: '/groupId', message: `group "${groupId}"` };
    return referenced(await groupsStore.find(trx, groupId), principal, 'GROUP_NOT_FOUND', detail).id;
  }

  /** A group deleted between our check and our write: the foreign key refuses, the caller hears 404. */
  function groupVanished(error: unknown): never {
    if (isForeignKeyViolation(error))
      throw new AppError('GROUP_NOT_FOUND', [{ path: '/groupId', message: 'the group was deleted' }]);
    throw error;
  }

  /** A new rule from a checked body, written in `trx`; answers its change (not recorded). */
  async function insertRule(trx: Db, principal: Principal, checked: RuleInput): Promise<ChangeInput> {
    const { write: input, pairs = [] } = checked;
    const ruleType = input.ruleType as RuleType;
    const name = input.name ?? '';
    const now = Date.now();
    const row: RuleRow = {
      id: '',
      workspace_id: principal.workspaceId,
      name,
      name_search: name.toLowerCase(),
      search_text: ruleSearchText(name, input.description ?? '', pairs),
      description: input.description ?? '',
      status: input.status ?? 'Inactive',
      rule_type: ruleType,
      group_id: await resolveGroup(trx, principal, input.groupId ?? ''),
      pairs: JSON.stringify(pairs),
      is_favourite: input.isFavourite ? 1 : 0,
      remove_csp_header: cspColumn(ruleType, input.removeCSPHeader),
      created_by: principal.userId,
      last_modified_by: principal.userId,
      creation_date: now,
      modification_date: now,
    };
    await rulesStore.insertNew(trx, row);
    const rule = toRule(row, principal, pairs);
    return { objectType: 'rule', id: row.id, change: 'created', object: rule, drawn: true };
  }

  /** The rule `id` changed by `body` in `trx`, in the order of checks; answers its change (not recorded). */
  async function updateRule(
    trx: Db,
    principal: Principal,
    id: string,
    body: unknown,
    ifMatch?: string,
  ): Promise<ChangeInput> {
    const { row, body: input } = await checkInOrder(principal, id, {
      kind: RULES,
      find: () => rulesStore.find(trx, id, true),
      precondition: ifMatchHolds(ifMatch),
      unchanged: ruleTypeKept(body),
      body: (row) => readRule(body, { creating: false, storedType: row.rule_type as RuleType, maxDelayMs }),
    });
    const { write: change, pairs } = input;
    const groupId =
      change.groupId === undefined ? row.group_id : await resolveGroup(trx, principal, change.groupId);
    const name = change.name ?? row.name;
    const description = change.description ?? row.description;
    // A switch or a move (the bulk edits) changes nothing searched: no parse of the pairs.
    const searched = change.name !== undefined || change.description !== undefined || pairs;
    const updated: RuleRow = {
      ...row,
      name,
      name_search: name.toLowerCase(),
      search_text: searched
        ? ruleSearchText(name, description, pairs ?? (JSON.parse(row.pairs) as unknown[]))
        : row.search_text,
      description,
      status: change.status ?? row.status,
      group_id: groupId,
      pairs: pairs ? JSON.stringify(pairs) : row.pairs,
      is_favourite: change.isFavourite === undefined ? row.is_favourite : change.isFavourite ? 1 : 0,
      remove_csp_header: cspColumn(row.rule_type, change.removeCSPHeader, row.remove_csp_header),
      last_modified_by: principal.userId,
      modification_date: nextTimestamp(row.modification_date),
    };
    await rulesStore.update(trx, updated);
    const rule = toRule(updated, principal, pairs);
    return { objectType: 'rule', id, change: 'updated', object: rule };
  }

  /** The rule `id` deleted in `trx`; answers its change (not recorded). */
  async function removeRule(
    trx: Db,
    principal: Principal,
    id: string,
    ifMatch?: string,
  ): Promise<ChangeInput> {
    const { row } = await checkInOrder(principal, id, {
      kind: RULES,
      find: () => rulesStore.find(trx, id, true),
      precondition: ifMatchHolds(ifMatch),
    });
    await rulesStore.delete(trx, id);
    return { objectType: 'rule', id, change: 'deleted', object: toRule(row, principal) };
  }

  return {
    /**
     * A rule as JSON text, built by the database: a read needs neither a row object nor a parse.
     * `version` (Observed.version, read before) lets the read model answer from memory.
     */
    async get(principal: Principal, id: string, version?: number): Promise<SerializedOne> {
      const { workspaceId, ownerUserId } = principal;
      const { row } = await checkInOrder(principal, id, {
        kind: RULES,
        find: () => readModel.rule(workspaceId, id, ownerUserId, version),
      });
      return { json: row.json, modificationDate: row.modification_date };
    },

    /** A page of rules, each as JSON text built by the database (sent as it is). */
    async list(principal: Principal, query: unknown, version?: number): Promise<RulePage> {
      const q = readListQuery(query, checkRuleListQuery);
      const filter = {
        workspaceId: principal.workspaceId,
        status: q.status,
        ruleType: q.ruleType,
        groupId: q.groupId === '' ? null : q.groupId,
        isFavourite: q.isFavourite === undefined ? undefined : q.isFavourite === 'true',
        search: q.search?.toLowerCase(),
        sort: q.sort,
      };
      return readModel.page(filter, principal.ownerUserId, q.offset, q.pageSize, version);
    },

    async create(principal: Principal, body: unknown, idempotencyKey?: string): Promise<Created<Rule>> {
      const input = readRule(body, { creating: true, maxDelayMs });
      // Set once the change is recorded; a replay records nothing.
      let revision: number | undefined;
      const created = await idempotency
        .create(principal, idempotencyKey, ['POST /v1/rules', body], async (trx) => {
          const change = await insertRule(trx, principal, input);
          revision = await changes.record(trx, principal, [change]);
          return change.object as Rule;
        })
        .catch(groupVanished);
      return { ...created, revision };
    },

    async update(principal: Principal, id: string, body: unknown, ifMatch?: string): Promise<Recorded<Rule>> {
      return db
        .transaction()
        .execute(async (trx) => {
          const change = await updateRule(trx, principal, id, body, ifMatch);
          const revision = await changes.record(trx, principal, [change]);
          return { data: change.object as Rule, revision };
        })
        .catch(groupVanished);
    },

    async remove(principal: Principal, id: string, ifMatch?: string): Promise<Recorded<string>> {
      const revision = await db.transaction().execute(async (trx) => {
        const change = await removeRule(trx, principal, id, ifMatch);
        return changes.record(trx, principal, [change]);
      });
      return { data: RULE_DELETED, revision };
    },

    /**
     * The same writes inside the caller's transaction, checked as the routes check them and recording
     * nothing: each answers its change, for the caller to record (a change request's merge records all
     * of its operations as one revision).
     */
    inTransaction: {
      create: (trx: Db, principal: Principal, body: unknown) =>
        insertRule(trx, principal, readRule(body, { creating: true, maxDelayMs })),
      update: (trx: Db, principal: Principal, id: string, body: unknown) =>
        updateRule(trx, principal, id, body),
      remove: (trx: Db, principal: Principal, id: string) => removeRule(trx, principal, id),
    },
  };
}

export type RulesService = ReturnType<typeof createRulesService>;
