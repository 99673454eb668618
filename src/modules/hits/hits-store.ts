// SQL of the hits: a report added to the hours it falls in (one upsert for all of its entries), a
// rule's hours read back, the workspace's rules by last hit, the rules the lint calls never acted, and
// the retention sweep. Only `rules` is read besides the two tables of migration 0018.
import { sql } from 'kysely';
import { unindexed } from '../../db/dialect.js';
import type { Db } from '../../db/tables.js';

/** One entry to add: a rule's count in one hour from one source. */
export interface HourCount {
  ruleId: string;
  hour: number;
  count: number;
  firstAt: number;
  lastAt: number;
}

export interface HourRow {
  source: string;
  hour: number;
  hits: number;
  last_at: number;
}

export interface LastHitRow {
  id: string;
  last_at: number | null;
  week: number | null;
}

export interface NeverActedRow {
  id: string;
  name: string;
  rule_type: string;
}

/** The earlier or later of two columns' values, written alike for both databases. */
const earlier = (a: string, b: string) =>
  sql<number>`case when ${sql.ref(a)} < ${sql.ref(b)} then ${sql.ref(a)} else ${sql.ref(b)} end`;
const later = (a: string, b: string) =>
  sql<number>`case when ${sql.ref(a)} > ${sql.ref(b)} then ${sql.ref(a)} else ${sql.ref(b)} end`;

export function createHitsStore(db: Db) {
  return {
    /** The workspace of the rule with `id`, in any workspace (the order of checks' steps 3 and 4). */
    ruleOwner(id: string): Promise<{ workspace_id: string } | undefined> {
      return db.selectFrom('rules').select('workspace_id').where('id', '=', id).executeTakeFirst();
    },

    /**
     * Those of `ids` that are the workspace's rules now. By the primary key, the workspace checked on
     * each row found (see `unindexed`): a report's ids never cost a scan of the workspace.
     */
    async ownRules(workspaceId: string, ids: string[]): Promise<Set<string>> {
      if (ids.length === 0) return new Set();
      const rows = await db
        .selectFrom('rules')
        .select('id')
        .where('id', 'in', ids)
        .where(unindexed('workspace_id'), '=', workspaceId)
        .execute();
      return new Set(rows.map((row) => row.id));
    },

    /**
     * Adds `counts` (each a distinct rule and hour) and one report to the workspace's hours, in `trx`:
     * one statement for all the entries, so that a report costs the same two round trips whatever its
     * size, and an existing hour grows rather than being written twice.
     */
    async add(trx: Db, workspaceId: string, source: string, reportHour: number, counts: HourCount[]) {
      if (counts.length > 0)
        await trx
          .insertInto('rule_hits')
          .values(
            counts.map((c) => ({
              workspace_id: workspaceId,
              rule_id: c.ruleId,
              source,
              hour: c.hour,
              hits: c.count,
              first_at: c.firstAt,
              last_at: c.lastAt,
            })),
          )
          .onConflict((oc) =>
            oc.columns(['workspace_id', 'rule_id', 'hour', 'source']).doUpdateSet({
              hits: sql`rule_hits.hits + excluded.hits`,
              first_at: earlier('excluded.first_at', 'rule_hits.first_at'),
              last_at: later('excluded.last_at', 'rule_hits.last_at'),
            }),
          )
          .execute();
      // Each rule once (the hours of one rule go as several entries), at its latest.
      const last = new Map<string, number>();
      for (const c of counts) last.set(c.ruleId, Math.max(last.get(c.ruleId) ?? 0, c.lastAt));
      if (last.size > 0)
        await trx
          .insertInto('rule_last_hits')
          .values(
            [...last].map(([ruleId, at]) => ({ workspace_id: workspaceId, rule_id: ruleId, last_at: at })),
          )
          .onConflict((oc) =>
            oc
              .columns(['workspace_id', 'rule_id'])
              .doUpdateSet({ last_at: later('excluded.last_at', 'rule_last_hits.last_at') }),
          )
          .execute();
      await trx
        .insertInto('hit_reports')
        .values({ workspace_id: workspaceId, source, hour: reportHour, reports: 1 })
        .onConflict((oc) =>
          oc
            .columns(['workspace_id', 'hour', 'source'])
            .doUpdateSet({ reports: sql`hit_reports.reports + excluded.reports` }),
        )
        .execute();
    },

    /** The rule's hours from `since` on, each source apart. */
    hours(workspaceId: string, ruleId: string, since: number): Promise<HourRow[]> {
      return db
        .selectFrom('rule_hits')
        .select(['source', 'hour', 'hits', 'last_at'])
        .where('workspace_id', '=', workspaceId)
        .where('rule_id', '=', ruleId)
        .where('hour', '>=', since)
        .execute();
    },

    /** The rule's last hit in what is kept (null: none). */
    async lastHit(workspaceId: string, ruleId: string): Promise<number | null> {
      const row = await db
        .selectFrom('rule_last_hits')
        .select('last_at')
        .where('workspace_id', '=', workspaceId)
        .where('rule_id', '=', ruleId)
        .executeTakeFirst();
      return row === undefined ? null : Number(row.last_at);
    },

    /**
     * A page of the workspace's rules, most recently acted first, then those that never did, in list
     * order (creation date, id); `week`: their hits from `weekStart` on.
     */
    rulesByLastHit(
      workspaceId: string,
      weekStart: number,
      offset: number,
      limit: number,
    ): Promise<LastHitRow[]> {
      // The last 7 days only are summed (by the index on workspace and hour), the last hit kept apart.
      const week = db
        .selectFrom('rule_hits')
        .select((eb) => ['rule_id', eb.fn.sum<number>('hits').as('week')])
        .where('workspace_id', '=', workspaceId)
        .where('hour', '>=', weekStart)
        .groupBy('rule_id')
        .as('w');
      const last = db
        .selectFrom('rule_last_hits')
        .select(['rule_id', 'last_at'])
        .where('workspace_id', '=', workspaceId)
        .as('l');
      return db
        .selectFrom('rules as r')
        .leftJoin(last, 'l.rule_id', 'r.id')
        .leftJoin(week, 'w.rule_id', 'r.id')
        .select(['r.id', 'l.last_at', 'w.week'])
        .where('r.workspace_id', '=', workspaceId)
        .orderBy(sql`case when l.last_at is null then 1 else 0 end`)
        .orderBy('l.last_at', 'desc')
        .orderBy('r.creation_date')
        .orderBy('r.id')
        .offset(offset)
        .limit(limit)
        .execute() as Promise<LastHitRow[]>;
    },

    async ruleCount(workspaceId: string): Promise<number> {
      const row = await db
        .selectFrom('rules')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('workspace_id', '=', workspaceId)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    /** The first and last hour a report came in from `since` on (null: none). */
    async reportHours(
      workspaceId: string,
      since: number,
    ): Promise<{ first: number | null; last: number | null }> {
      const row = await db
        .selectFrom('hit_reports')
        .select((eb) => [eb.fn.min('hour').as('first'), eb.fn.max('hour').as('last')])
        .where('workspace_id', '=', workspaceId)
        .where('hour', '>=', since)
        .executeTakeFirst();
      const value = (v: unknown) => (v === null || v === undefined ? null : Number(v));
      return { first: value(row?.first), last: value(row?.last) };
    },

    /**
     * The reports taken in the hours from `since` on, every source: it only grows (each report adds
     * one, in the transaction that adds its hits), so an unchanged sum says no report came meanwhile.
     * A few rows, by the primary key.
     */
    async reportsSince(workspaceId: string, since: number): Promise<number> {
      const row = await db
        .selectFrom('hit_reports')
        .select((eb) => eb.fn.sum<number>('reports').as('n'))
        .where('workspace_id', '=', workspaceId)
        .where('hour', '>=', since)
        .executeTakeFirst();
      return Number(row?.n ?? 0);
    },

    /**
     * The workspace's Active rules (ungrouped or in an Active group) unchanged since `changedBefore`
     * that have no hit since their last change (nor since `keptFrom`: older hits count as swept, whether
     * the sweep has run yet or not), in list order, at most `limit`.
     */
    neverActed(
      workspaceId: string,
      changedBefore: number,
      keptFrom: number,
      limit: number,
    ): Promise<NeverActedRow[]> {
      return db
        .selectFrom('rules as r')
        .leftJoin('groups as g', 'g.id', 'r.group_id')
        .select(['r.id', 'r.name', 'r.rule_type'])
        .where('r.workspace_id', '=', workspaceId)
        .where('r.status', '=', 'Active')
        .where((eb) => eb.or([eb('r.group_id', 'is', null), eb('g.status', '=', 'Active')]))
        .where('r.modification_date', '<=', changedBefore)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom('rule_last_hits as h')
                .select('h.rule_id')
                .where('h.workspace_id', '=', workspaceId)
                .whereRef('h.rule_id', '=', 'r.id')
                .whereRef('h.last_at', '>=', 'r.modification_date')
                .where('h.last_at', '>=', keptFrom),
            ),
          ),
        )
        .orderBy('r.creation_date')
        .orderBy('r.id')
        .limit(limit)
        .execute();
    },

    /** Removes what is older than `cutoff`: hours of hits and reports, last hits; answers how many rows went. */
    async sweep(cutoff: number): Promise<number> {
      const hits = await db.deleteFrom('rule_hits').where('hour', '<', cutoff).executeTakeFirst();
      const reports = await db.deleteFrom('hit_reports').where('hour', '<', cutoff).executeTakeFirst();
      const last = await db.deleteFrom('rule_last_hits').where('last_at', '<', cutoff).executeTakeFirst();
      return Number(hits.numDeletedRows) + Number(reports.numDeletedRows) + Number(last.numDeletedRows);
    },
  };
}

export type HitsStore = ReturnType<typeof createHitsStore>;
