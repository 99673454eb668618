// Queries built and compiled once: Kysely's builder and compiler cost more per call than the lookup
// itself on the hot paths, so these keep the SQL and swap only the parameters.
import type { Compilable, CompiledQuery } from 'kysely';
import type { Db } from './tables.js';

/** A marker no caller can send: it names the slot a parameter fills in the compiled query. */
const slot = (name: string) => `\u0000slot:${name}`;

export interface Prepared<P, R> {
  /** Runs on `db` or on a transaction of it. */
  all(db: Db, params: P): Promise<R[]>;
  first(db: Db, params: P): Promise<R | undefined>;
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

  async function all(target: Db, params: P): Promise<R[]> {
    const query = { ...compiled, parameters: fill.map((get) => get(params)) };
    return (await target.executeQuery(query)).rows as R[];
  }
  return { all, first: async (target, params) => (await all(target, params))[0] };
}
