// The rules list's search looks in descriptions and source values too, not only names: one
// lower-cased text per rule (model/rule-search.ts), filled here for the rules already stored.
import { type Kysely, sql } from 'kysely';
import { ruleSearchText } from '../../model/rule-search.js';

const BATCH = 500;

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('rules')
    .addColumn('search_text', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
  // In id order, a batch at a time, so a large table is never held in memory whole.
  let after = '';
  for (;;) {
    const { rows } = await sql<{ id: string; name: string; description: string; pairs: string }>`
      select id, name, description, pairs from rules where id > ${after} order by id limit ${BATCH}`.execute(
      db,
    );
    if (rows.length === 0) break;
    // One statement per batch (a statement per rule took 234 s for 100,000 rules on SQLite, each its
    // own synced commit, and 19 s on PostgreSQL). VALUES names its columns column1, column2 on both.
    const texts = rows.map(
      (row) =>
        sql`(${row.id}, ${ruleSearchText(row.name, row.description, JSON.parse(row.pairs) as unknown[])})`,
    );
    await sql`update rules set search_text = v.column2 from (values ${sql.join(texts)}) as v
      where rules.id = v.column1`.execute(db);
    const last = rows.at(-1);
    if (!last || rows.length < BATCH) break;
    after = last.id;
  }
}
