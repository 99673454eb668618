// Reviewed changes (decisions §19): a workspace's settings (whether direct writes need a review, and who
// reviews), change requests with their operations, evidence and reviews, and on the change log the
// change request a revision merged (or the mark of an admin's direct write while review was required).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  // One row per workspace that changed a setting; a workspace without one has the defaults.
  await db.schema
    .createTable('workspace_settings')
    .addColumn('workspace_id', 'varchar(64)', (c) => c.primaryKey().references('workspaces.id'))
    // 'off' or 'required'.
    .addColumn('review', 'varchar(16)', (c) => c.notNull())
    // 'admins' or 'editors': who may review a change request.
    .addColumn('reviewers', 'varchar(16)', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_by', 'varchar(64)')
    .execute();

  await db.schema
    .createTable('change_requests')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('workspace_id', 'varchar(64)', (c) => c.notNull().references('workspaces.id'))
    .addColumn('title', 'varchar(256)', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('author_user_id', 'varchar(64)', (c) => c.notNull())
    // open, approved, rejected, merged, closed.
    .addColumn('state', 'varchar(16)', (c) => c.notNull())
    // The workspace's revision the operations were written against (taken again on every update).
    .addColumn('base_revision', 'bigint', (c) => c.notNull())
    // One more on every update: a review counts for the version it saw.
    .addColumn('version', 'integer', (c) => c.notNull())
    // The operations as checked, JSON text: always read and written whole.
    .addColumn('operations', 'text', (c) => c.notNull())
    // The evidence as JSON text ({status, ...}).
    .addColumn('evidence', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('merged_revision', 'bigint')
    // Who merged or closed it, and when.
    .addColumn('ended_by', 'varchar(64)')
    .addColumn('ended_at', 'bigint')
    .execute();
  // A workspace's change requests by state, newest first (GET /v1/change-requests).
  await db.schema
    .createIndex('change_requests_by_workspace')
    .on('change_requests')
    .columns(['workspace_id', 'state', 'created_at'])
    .execute();

  await db.schema
    .createTable('change_request_reviews')
    .addColumn('id', 'varchar(64)', (c) => c.primaryKey())
    .addColumn('change_request_id', 'varchar(64)', (c) => c.notNull().references('change_requests.id'))
    .addColumn('reviewer_user_id', 'varchar(64)', (c) => c.notNull())
    // approve or request_changes.
    .addColumn('verdict', 'varchar(16)', (c) => c.notNull())
    .addColumn('comment', 'text', (c) => c.notNull())
    // The change request's version the review saw.
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('change_request_reviews_by_request')
    .on('change_request_reviews')
    .columns(['change_request_id', 'at'])
    .execute();

  // The change request a revision merged; null for a direct write.
  await db.schema.alterTable('changes').addColumn('change_request_id', 'varchar(64)').execute();
  // 1: a direct write by an admin or owner while the workspace's review was required.
  await db.schema
    .alterTable('changes')
    .addColumn('review_bypassed', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}
