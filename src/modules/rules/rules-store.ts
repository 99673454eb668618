// SQL for rules.
import { sql } from 'kysely';
import type { DialectName } from '../../db/database.js';
import type { Db, RuleRow } from '../../db/tables.js';

export interface RuleFilter {
  workspaceId: string;
  status?: string;
  ruleType?: string;
  /** null for ungrouped rules. */
  groupId?: string | null;
  /** Lower-cased part of the name. */
  search?: string;
}

/** LIKE treats % and _ as wildcards; a search for them means the characters themselves. */
function likeEscape(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

export function createRulesStore(db: Db, dialect: DialectName) {
  function filtered(filter: RuleFilter) {
    let query = db.selectFrom('rules').where('workspace_id', '=', filter.workspaceId);
    if (filter.status !== undefined) query = query.where('status', '=', filter.status);
    if (filter.ruleType !== undefined) query = query.where('rule_type', '=', filter.ruleType);
    if (filter.groupId === null) query = query.where('group_id', 'is', null);
    else if (filter.groupId !== undefined) query = query.where('group_id', '=', filter.groupId);
    if (filter.search) {
      const pattern = `%${likeEscape(filter.search)}%`;
      query = query.where(sql<boolean>`name_search like ${pattern} escape '\\'`);
    }
    return query;
  }

  return {
    /** Inserts the rule; false when its id is taken (the caller retries with another). */
    async insert(trx: Db, row: RuleRow): Promise<boolean> {
      const result = await trx
        .insertInto('rules')
        .values(row)
        .onConflict((oc) => oc.column('id').doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows) > 0;
    },

    /** The rule with that id in any workspace; locked for the transaction's write on PostgreSQL. */
    async find(trx: Db, id: string, lock = false): Promise<RuleRow | undefined> {
      let query = trx.selectFrom('rules').selectAll().where('id', '=', id);
      if (lock && dialect === 'postgres') query = query.forUpdate();
      return query.executeTakeFirst();
    },

    async update(trx: Db, row: RuleRow): Promise<void> {
      const { id, workspace_id, rule_type, created_by, creation_date, ...changes } = row;
      await trx.updateTable('rules').set(changes).where('id', '=', id).execute();
    },

    async delete(trx: Db, id: string): Promise<void> {
      await trx.deleteFrom('rules').where('id', '=', id).execute();
    },

    async list(filter: RuleFilter, offset: number, limit: number): Promise<RuleRow[]> {
      return filtered(filter)
        .selectAll()
        .orderBy('creation_date')
        .orderBy('id')
        .limit(limit)
        .offset(offset)
        .execute();
    },

    async count(filter: RuleFilter): Promise<number> {
      const row = await filtered(filter)
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
}

export type RulesStore = ReturnType<typeof createRulesStore>;
