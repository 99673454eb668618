// Memberships: who belongs to a workspace, and in what role (model/role.ts). Before, a key alone said
// what its holder could do; now a key's power is the smaller of its scope and its user's role. Existing
// data keeps every power it had: a user with unrevoked keys in a workspace becomes a member with the
// role of its broadest key (read: viewer, write: editor, admin: admin), and each workspace's first
// user, its owner, becomes an `owner`.
import { type Kysely, sql } from 'kysely';

const ROLE_OF_SCOPE: Record<string, string> = { read: 'viewer', write: 'editor', admin: 'admin' };
const RANK = ['viewer', 'editor', 'admin', 'owner'];

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('memberships')
    .addColumn('workspace_id', 'varchar(64)', (c) => c.notNull().references('workspaces.id'))
    .addColumn('user_id', 'varchar(64)', (c) => c.notNull().references('users.id'))
    .addColumn('role', 'varchar(16)', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('memberships_pk', ['workspace_id', 'user_id'])
    .execute();
  // A user's workspaces (the workspace's members are the primary key's prefix).
  await db.schema.createIndex('memberships_by_user').on('memberships').column('user_id').execute();

  const roles = new Map<string, { workspace: string; user: string; role: string; at: number }>();
  const grant = (workspace: string, user: string, role: string, at: number) => {
    const key = `${workspace}\u0000${user}`;
    const had = roles.get(key);
    if (!had || RANK.indexOf(role) > RANK.indexOf(had.role)) roles.set(key, { workspace, user, role, at });
  };
  const keys = await sql<{ workspace_id: string; user_id: string; scope: string; created_at: number }>`
    select workspace_id, user_id, scope, created_at from api_keys where revoked_at is null`.execute(db);
  for (const k of keys.rows)
    grant(k.workspace_id, k.user_id, ROLE_OF_SCOPE[k.scope] ?? 'editor', Number(k.created_at));
  const workspaces = await sql<{ id: string; owner_user_id: string; created_at: number }>`
    select id, owner_user_id, created_at from workspaces`.execute(db);
  for (const w of workspaces.rows) grant(w.id, w.owner_user_id, 'owner', Number(w.created_at));
  for (const m of roles.values())
    await sql`insert into memberships (workspace_id, user_id, role, created_at)
      values (${m.workspace}, ${m.user}, ${m.role}, ${m.at})`.execute(db);
}
