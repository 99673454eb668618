// "Recently deleted" (GET /v1/rules/deleted) reads a workspace's deletions, newest first: a partial
// index of the deletion records alone, so that listing them does not read the whole change log of a
// workspace with a long history. Deletions are few, so the index costs writes almost nothing.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createIndex('changes_deleted')
    .on('changes')
    .columns(['workspace_id', 'object_type', 'revision', 'seq'])
    .where(sql.ref('change'), '=', sql.lit('deleted'))
    .execute();
}
