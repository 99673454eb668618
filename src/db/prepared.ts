// Queries built and compiled once: Kysely's builder and compiler cost more per call than the lookup
// itself on the hot paths, so these keep the SQL and swap only the parameters.
import type { Compilable, CompiledQuery, QueryResult, Selectable } from 'kysely';
import type { DialectName } from './database.js';
import type { Db, Tables } from './tables.js';

/** A marker no caller can send: it names the slot a parameter fills in the compiled query. */
const slot = (name: string) => `\u0000slot:${name}`;

export interface Prepared<P, R> {
  /** Runs on `db` or on a transaction of it. */
  all(db: Db, params: P): Promise<R[]>;
  first(db: Db, params: P): Promise<R | undefined>;
  /** Runs a write, answering how many rows it changed (and the rows it returns). */
  run(db: Db, params: P): Promise<QueryResult<R>>;
}

/**
 * Compiles `build` once, with a marker in place of each named parameter, and remembers which compiled
 * parameter comes from which name. `build` must use every name only as a value (`where(col, '=', p.x)`,
 * `limit(p.n)`), never to shape the query.
 */
export function prepared<P extends Record<string, unknown>, R>(
  db: Db,
  names: readonly (keyof P & string)[],
  build: (db: Db, p: P) => Compilable<R>,
): Prepared<P, R> {
  const markers = Object.fromEntries(names.map((name) => [name, slot(name)])) as unknown as P;
  const compiled = build(db, markers).compile() as CompiledQuery<R>;
  const fill = compiled.parameters.map((value) => {
    const name = names.find((n) => slot(n) === value);
    return name === undefined ? () => value : (params: P) => params[name];
  });

  const run = (target: Db, params: P) =>
    target.executeQuery<R>({ ...compiled, parameters: fill.map((get) => get(params)) });
  const all = async (target: Db, params: P) => (await run(target, params)).rows;
  return { all, first: async (target, params) => (await all(target, params))[0], run };
}

/**
 * Finds a row by id in any workspace, compiled once. With `lock`, PostgreSQL locks the row for the
 * read-modify-write of the caller's transaction; SQLite needs no lock, since it writes one at a time.
 */
export function preparedFindById<T extends 'rules' | 'groups'>(db: Db, dialect: DialectName, table: T) {
  type Row = Selectable<Tables[T]>;
  const build = (lock: boolean) =>
    prepared<{ id: string }, Row>(db, ['id'], (db, p) => {
      // One table of the two; Kysely cannot type a query over a table chosen at run time.
      const query = db
        .selectFrom(table as 'rules')
        .selectAll()
        .where('id', '=', p.id);
      return (lock ? query.forUpdate() : query) as unknown as Compilable<Row>;
    });
  const plain = build(false);
  const locked = dialect === 'postgres' ? build(true) : plain;
  return (trx: Db, id: string, lock = false): Promise<Row | undefined> =>
    (lock ? locked : plain).first(trx, { id });
}
