// Who owns each rule and group id, for all time, and the one place where new ids are drawn: an id is
// claimed by its workspace in the transaction that first writes it and is never anyone else's, also
// after the object is deleted, so no workspace can take over another's history or restore.
import { sql } from 'kysely';
import type { Db, IdOwnersTable } from '../../db/tables.js';
import { randomSuffix } from '../../ids.js';

export type OwnedType = IdOwnersTable['object_type'];

// Ids per statement: three bound parameters each, well under either database's limit.
const CHUNK = 500;

function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

/** The workspace owning each of these ids, for those any workspace ever had. */
export async function idOwners(trx: Db, ids: Iterable<string>): Promise<Map<string, string>> {
  const owners = new Map<string, string>();
  for (const some of chunks([...new Set(ids)])) {
    const rows = await trx
      .selectFrom('id_owners')
      .select(['id', 'workspace_id'])
      .where('id', 'in', some)
      .execute();
    for (const row of rows) owners.set(row.id, row.workspace_id);
  }
  return owners;
}

/** The workspace owning one id, when any workspace ever had it. */
export async function idOwner(trx: Db, id: string): Promise<string | undefined> {
  const row = await trx
    .selectFrom('id_owners')
    .select('workspace_id')
    .where('id', '=', id)
    .executeTakeFirst();
  return row?.workspace_id;
}

/** Claims the ids no one owns for the workspace; answers those it could claim now (never owned before). */
async function claimFree(
  trx: Db,
  workspaceId: string,
  objectType: OwnedType,
  ids: string[],
): Promise<Set<string>> {
  const claimed = new Set<string>();
  if (ids.length === 1) {
    // What every create runs: one id, written as SQL both databases read alike (cheaper to build).
    const { rows } = await sql<{ id: string }>`
      insert into id_owners (id, object_type, workspace_id) values (${ids[0]}, ${objectType}, ${workspaceId})
      on conflict (id) do nothing returning id`.execute(trx);
    for (const row of rows) claimed.add(row.id);
    return claimed;
  }
  for (const some of chunks(ids)) {
    const rows = await trx
      .insertInto('id_owners')
      .values(some.map((id) => ({ id, object_type: objectType, workspace_id: workspaceId })))
      .onConflict((oc) => oc.column('id').doNothing())
      .returning('id')
      .execute();
    for (const row of rows) claimed.add(row.id);
  }
  return claimed;
}

/**
 * Makes ids an import keeps the workspace's: answers those that another workspace owns (taken
 * meanwhile), which must not be used. With `claim` false (a dry run), only checks.
 */
export async function keepIds(
  trx: Db,
  workspaceId: string,
  objectType: OwnedType,
  ids: string[],
  claim: boolean,
): Promise<Set<string>> {
  if (claim) await claimFree(trx, workspaceId, objectType, ids);
  const owners = await idOwners(trx, ids);
  return new Set(ids.filter((id) => (owners.get(id) ?? workspaceId) !== workspaceId));
}

/**
 * New ids, one per prefix (`Redirect_…`, `Group_…`), that no workspace ever had, claimed for the
 * workspace in the caller's transaction; with `claim` false (a dry run) only checked as free. Random
 * suffixes collide at scale (36^5 of them), so drawn ids that are taken, or already in `taken` (the
 * ids the caller has given), are drawn again; those drawn are added to `taken`.
 */
export async function drawIds(
  trx: Db,
  workspaceId: string,
  objectType: OwnedType,
  prefixes: readonly string[],
  options: { taken?: Set<string>; claim?: boolean } = {},
): Promise<string[]> {
  const taken = options.taken ?? new Set<string>();
  const ids: string[] = new Array(prefixes.length);
  let pending = prefixes.map((_, index) => index);
  for (let round = 1; pending.length > 0; round++) {
    if (round > 50) throw new Error(`no free ${objectType} ids after 50 draws`);
    const drawn = pending.map((index) => {
      let id: string;
      do id = `${prefixes[index]}_${randomSuffix()}`;
      while (taken.has(id));
      taken.add(id);
      return id;
    });
    let free: Set<string>;
    if (options.claim === false) {
      const owners = await idOwners(trx, drawn);
      free = new Set(drawn.filter((id) => !owners.has(id)));
    } else free = await claimFree(trx, workspaceId, objectType, drawn);
    const next: number[] = [];
    pending.forEach((index, i) => {
      const id = drawn[i] as string;
      if (free.has(id)) ids[index] = id;
      else next.push(index);
    });
    pending = next;
  }
  return ids;
}

/** One new id, claimed for the workspace in the caller's transaction. */
export async function drawId(
  trx: Db,
  workspaceId: string,
  objectType: OwnedType,
  prefix: string,
): Promise<string> {
  const [id] = await drawIds(trx, workspaceId, objectType, [prefix]);
  return id as string;
}

/**
 * One new id, claimed for its workspace together with the row it names by `claimAndWrite`: one
 * statement that claims the id in id_owners and writes the row only when the claim succeeded
 * (answering false when the id was taken), so that a create on PostgreSQL pays one round trip for
 * both. Drawn again while taken, as drawIds does.
 */
export async function drawIdWith(
  objectType: OwnedType,
  prefix: string,
  claimAndWrite: (id: string) => Promise<boolean>,
): Promise<string> {
  for (let round = 1; round <= 50; round++) {
    const id = `${prefix}_${randomSuffix()}`;
    if (await claimAndWrite(id)) return id;
  }
  throw new Error(`no free ${objectType} ids after 50 draws`);
}
