// SQL for the jobs that read a workspace's rules whole (traces, the lint): its rules in list order, each
// with its group's status, a page at a time and with their pairs still JSON text (the job's worker
// parses them, not the event loop).
import { unindexed } from '../../db/dialect.js';
import type { Db } from '../../db/tables.js';
import type { RulesCursor } from '../../jobs/job-pages.js';
import { removesCsp } from '../../model/rule.js';

/** A rule as a job takes it: stored fields, its group's status, its pairs as JSON text. */
export interface ListedRuleRow {
  id: string;
  name: string;
  ruleType: string;
  status: string;
  groupId: string | null;
  groupStatus: string | null;
  pairs: string;
  creationDate: number;
  /** A Script rule's `removeCSPHeader` (absent on other types). */
  removeCSPHeader?: boolean;
}

export function createListedRulesStore(db: Db) {
  const rules = () =>
    db
      .selectFrom('rules as r')
      .leftJoin('groups as g', 'g.id', 'r.group_id')
      .select([
        'r.id',
        'r.name',
        'r.rule_type',
        'r.status',
        'r.pairs',
        'r.remove_csp_header',
        'r.group_id',
        'r.creation_date',
        'g.status as group_status',
      ]);

  const row = (r: {
    id: string;
    name: string;
    rule_type: string;
    status: string;
    pairs: string;
    remove_csp_header: number | null;
    group_id: string | null;
    creation_date: number | string;
    group_status: string | null;
  }): ListedRuleRow => ({
    id: r.id,
    name: r.name,
    ruleType: r.rule_type,
    status: r.status,
    groupId: r.group_id,
    groupStatus: r.group_status,
    pairs: r.pairs,
    creationDate: Number(r.creation_date),
    ...(r.rule_type === 'Script' ? { removeCSPHeader: removesCsp(r) } : {}),
  });

  return {
    /** Up to `limit` of the workspace's rules in list order (oldest first), after `cursor`. */
    async rulesPage(workspaceId: string, limit: number, cursor?: RulesCursor): Promise<ListedRuleRow[]> {
      let query = rules().where('r.workspace_id', '=', workspaceId);
      if (cursor) {
        // A row-value comparison: both databases seek the index to it. Spelled as an OR, SQLite
        // scanned the workspace from its first rule on every page (O(n²): 4 s for 100,000 rules).
        query = query.where((eb) =>
          eb(eb.refTuple('r.creation_date', 'r.id'), '>', eb.tuple(cursor.creationDate, cursor.id)),
        );
      }
      const rows = await query.orderBy('r.creation_date').orderBy('r.id').limit(limit).execute();
      return rows.map(row);
    },

    /**
     * Up to `limit` of the workspace's rules just before `cursor` in list order, nearest first: a write's
     * lint in a large workspace reads back from its rule (the same index, sought the other way).
     */
    async rulesBefore(workspaceId: string, limit: number, cursor: RulesCursor): Promise<ListedRuleRow[]> {
      const rows = await rules()
        .where('r.workspace_id', '=', workspaceId)
        .where((eb) =>
          eb(eb.refTuple('r.creation_date', 'r.id'), '<', eb.tuple(cursor.creationDate, cursor.id)),
        )
        .orderBy('r.creation_date', 'desc')
        .orderBy('r.id', 'desc')
        .limit(limit)
        .execute();
      return rows.map(row);
    },

    /** How many rules the workspace holds. */
    async ruleCount(workspaceId: string): Promise<number> {
      const { count } = await db
        .selectFrom('rules')
        .select((eb) => eb.fn.countAll().as('count'))
        .where('workspace_id', '=', workspaceId)
        .executeTakeFirstOrThrow();
      return Number(count);
    },

    /** Those of `ids` that are the workspace's rules, in list order. */
    async someRules(workspaceId: string, ids: string[]): Promise<ListedRuleRow[]> {
      if (ids.length === 0) return [];
      const rows = await rules()
        .where('r.id', 'in', ids)
        .where(unindexed('r.workspace_id'), '=', workspaceId)
        .orderBy('r.creation_date')
        .orderBy('r.id')
        .execute();
      return rows.map(row);
    },
  };
}

export type ListedRulesStore = ReturnType<typeof createListedRulesStore>;
