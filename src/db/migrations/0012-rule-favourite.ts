// Two fields of Requestly's rule records that now act here (decision 22): a rule's `isFavourite` (pinned,
// as groups already are), and a Script rule's `removeCSPHeader`. Rules already stored are not pinned.
// Their Script rules keep what they did: the proxy and the Playwright fixture dropped a document's
// Content-Security-Policy whenever they injected a script, which is `removeCSPHeader: true` (also
// Requestly's default); other types have no such field (null).
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('rules')
    .addColumn('is_favourite', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('rules').addColumn('remove_csp_header', 'integer').execute();
  await sql`update rules set remove_csp_header = 1 where rule_type = 'Script'`.execute(db);
}
