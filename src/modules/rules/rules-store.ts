// SQL for rules.
import { CompiledQuery, type RawBuilder, sql } from 'kysely';
import type { DialectName } from '../../db/database.js';
import { jsonObjectText } from '../../db/dialect.js';
import { type Prepared, prepared, preparedFindById } from '../../db/prepared.js';
import type { Db, RuleRow } from '../../db/tables.js';
import { RULE_FIELDS, type Rule, SCRIPT_RULE_FIELDS } from '../../model/rule.js';
import type { RuleSort } from '../../model/rule-search.js';
import { drawId, drawIdWith } from '../shared/id-owners-store.js';

export interface RuleFilter {
  workspaceId: string;
  status?: string;
  ruleType?: string;
  /** null for ungrouped rules. */
  groupId?: string | null;
  /** Pinned rules only (true) or unpinned ones only (false). */
  isFavourite?: boolean;
  /** Lower-cased part of the name, the description or a source value. */
  search?: string;
  /** Default `creationDate`. */
  sort?: RuleSort;
}

/**
 * A rule's group's place in the groups list (oldest group first, as GET /v1/groups lists them), and
 * ungrouped rules after every group. Unqualified `group_id`, so that the same expression orders the
 * rules table and the page cut from it; the `case` says where no group goes on both databases alike
 * (SQLite puts nulls first, PostgreSQL last).
 */
const UNGROUPED_LAST = sql`case when group_id is null then 1 else 0 end`;
const GROUP_CREATED = sql`(select g.creation_date from ${sql.table('groups')} g where g.id = group_id)`;

/** The columns of each order; the id last, so that rules that tie keep one order across pages. */
const ORDERS: Record<
  RuleSort,
  [
    column:
      | 'creation_date'
      | 'name_search'
      | 'rule_type'
      | 'modification_date'
      | 'is_favourite'
      | 'status'
      | 'group_id'
      | 'id'
      | RawBuilder<unknown>,
    direction: 'asc' | 'desc',
  ][]
> = {
  creationDate: [
    ['creation_date', 'asc'],
    ['id', 'asc'],
  ],
  name: [
    ['name_search', 'asc'],
    ['id', 'asc'],
  ],
  ruleType: [
    ['rule_type', 'asc'],
    ['name_search', 'asc'],
    ['id', 'asc'],
  ],
  modificationDate: [
    ['modification_date', 'asc'],
    ['id', 'asc'],
  ],
  '-modificationDate': [
    ['modification_date', 'desc'],
    ['id', 'desc'],
  ],
  // Pinned rules first, then the others, each by name, as Requestly's favourites are kept at the top.
  pinned: [
    ['is_favourite', 'desc'],
    ['name_search', 'asc'],
    ['id', 'asc'],
  ],
  // Active rules first ("Active" sorts before "Inactive"), each by name.
  status: [
    ['status', 'asc'],
    ['name_search', 'asc'],
    ['id', 'asc'],
  ],
  // By group in the groups list's order (the console's headings' order), ungrouped last; each
  // group's rules by name. The group's id after its date: two groups made in one millisecond.
  group: [
    [UNGROUPED_LAST, 'asc'],
    [GROUP_CREATED, 'asc'],
    ['group_id', 'asc'],
    ['name_search', 'asc'],
    ['id', 'asc'],
  ],
};

/** The filter as query parameters: the search as a LIKE pattern, where % and _ mean themselves. */
type FilterParams = Omit<RuleFilter, 'search' | 'sort' | 'isFavourite'> & {
  favourite?: number;
  namePattern?: string;
  offset?: number;
  limit?: number;
  owner?: string;
};

function filterParams(filter: RuleFilter): FilterParams {
  const { search, sort: _sort, isFavourite, ...rest } = filter;
  // The column's value, so that both databases compare an integer with an integer.
  const pinned = isFavourite === undefined ? {} : { favourite: isFavourite ? 1 : 0 };
  return search
    ? { ...rest, ...pinned, namePattern: `%${search.replace(/[\\%_]/g, (c) => `\\${c}`)}%` }
    : { ...rest, ...pinned };
}

/** A rule as the API returns it (JSON text), with what the access check and the ETag need. */
export interface RuleJson {
  workspace_id: string;
  modification_date: number;
  json: string;
}

export function createRulesStore(db: Db, dialect: DialectName) {
  const byId = preparedFindById(db, dialect, 'rules');

  function filtered(db: Db, filter: FilterParams) {
    let query = db.selectFrom('rules').where('workspace_id', '=', filter.workspaceId);
    if (filter.status !== undefined) query = query.where('status', '=', filter.status);
    if (filter.ruleType !== undefined) query = query.where('rule_type', '=', filter.ruleType);
    if (filter.groupId === null) query = query.where('group_id', 'is', null);
    else if (filter.groupId !== undefined) query = query.where('group_id', '=', filter.groupId);
    if (filter.favourite !== undefined) query = query.where('is_favourite', '=', filter.favourite);
    if (filter.namePattern !== undefined) {
      query = query.where(sql<boolean>`search_text like ${filter.namePattern} escape '\\'`);
    }
    return query;
  }

  /**
   * A rule as the API returns it, as JSON text built by the database: a page of rules needs neither
   * a row object nor a parse of its stored pairs per rule. The fields are the schema's (RULE_FIELDS),
   * in its order; each needs its SQL here, as each needs its value in toRule (model/rule.ts). A Script
   * rule has one more, `removeCSPHeader`: its object is built with it (SCRIPT_RULE_FIELDS), the others'
   * without, so that no other type carries a field it has no use for.
   */
  function ruleJson(owner: unknown) {
    const column = (name: string) => sql.ref(name);
    // Booleans as JSON text (`true`, `false`), which both databases embed as JSON: SQLite has no boolean.
    const boolean = (condition: RawBuilder<unknown>) => ({
      json: sql`case when ${condition} then 'true' else 'false' end`,
    });
    const fields: Record<keyof Rule, RawBuilder<unknown> | { json: RawBuilder<unknown> }> = {
      id: column('id'),
      name: column('name'),
      description: column('description'),
      status: column('status'),
      isFavourite: boolean(sql`is_favourite = 1`),
      ruleType: column('rule_type'),
      groupId: sql`coalesce(group_id, '')`,
      pairs: { json: column('pairs') },
      createdBy: column('created_by'),
      creationDate: column('creation_date'),
      lastModifiedBy: column('last_modified_by'),
      modificationDate: column('modification_date'),
      currentOwner: sql`cast(${owner} as text)`,
      objectType: sql.lit('rule'),
      // As removesCsp (model/rule.ts) reads it: null, written before the field, is true.
      removeCSPHeader: boolean(sql`coalesce(remove_csp_header, 1) <> 0`),
    };
    const object = (names: readonly (keyof Rule)[]) =>
      jsonObjectText(dialect, Object.fromEntries(names.map((name) => [name, fields[name]])));
    return sql<string>`case when rule_type = 'Script' then ${object(SCRIPT_RULE_FIELDS)} else ${object(RULE_FIELDS)} end`;
  }

  const jsonById = prepared<{ id: string; owner: string }, RuleJson>(db, ['id', 'owner'], (db, p) =>
    db
      .selectFrom('rules')
      .select(['workspace_id', 'modification_date', ruleJson(p.owner).as('json')])
      .where('id', '=', p.id),
  );

  /** The page and count queries of one combination of filters, prepared on first use. */
  const listQueries = new Map<
    string,
    { page: Prepared<FilterParams, { json: string }>; count: Prepared<FilterParams, { n: number }> }
  >();
  function listQueriesFor(filter: FilterParams, sort: RuleSort = 'creationDate') {
    const present = (Object.keys(filter) as (keyof FilterParams)[]).filter((k) => filter[k] !== undefined);
    const shape = `${present.sort().join(',')}${filter.groupId === null ? ':ungrouped' : ''} ${sort}`;
    const order = ORDERS[sort];
    let queries = listQueries.get(shape);
    if (!queries) {
      const names = present.filter((k) => filter[k] !== null);
      queries = {
        // The page is cut first and turned into JSON after, so that only its rules are serialised
        // whatever plan the database picks (a sort over the whole workspace would otherwise build
        // the JSON of every rule in it).
        page: prepared<FilterParams, { json: string }>(db, [...names, 'owner', 'offset', 'limit'], (db, p) =>
          db
            .selectFrom(
              order
                .reduce(
                  (query, [column, direction]) => query.orderBy(column, direction),
                  filtered(db, { ...p, groupId: filter.groupId === null ? null : p.groupId }).selectAll(),
                )
                .limit(p.limit as number)
                .offset(p.offset as number)
                .as('page'),
            )
            .select(ruleJson(p.owner).as('json'))
            .$call((query) =>
              order.reduce((ordered, [column, direction]) => ordered.orderBy(column, direction), query),
            ),
        ),
        count: prepared<FilterParams, { n: number }>(db, names, (db, p) =>
          filtered(db, { ...p, groupId: filter.groupId === null ? null : p.groupId }).select((eb) =>
            eb.fn.countAll<number>().as('n'),
          ),
        ),
      };
      listQueries.set(shape, queries);
    }
    return queries;
  }

  // Every create and update runs one of these: compiled once.
  const RULE_ROW = [
    'id',
    'workspace_id',
    'name',
    'name_search',
    'search_text',
    'description',
    'status',
    'rule_type',
    'group_id',
    'pairs',
    'is_favourite',
    'remove_csp_header',
    'created_by',
    'last_modified_by',
    'creation_date',
    'modification_date',
  ] as const satisfies readonly (keyof RuleRow)[];
  // Every column, or a write would leave one to its default: a column added to RuleRow fails here.
  const everyColumn: Exclude<keyof RuleRow, (typeof RULE_ROW)[number]> extends never ? true : never = true;
  void everyColumn;
  const inserted = prepared<RuleRow, never>(db, RULE_ROW, (db, p) =>
    db
      .insertInto('rules')
      .values(p)
      .onConflict((oc) => oc.column('id').doNothing()),
  );
  // PostgreSQL: the id claimed and the rule inserted in one round trip, the rule only when the claim
  // succeeded. A create runs inside its workspace's batch (db/postgres-write-batches.ts), where each
  // round trip is waited for by every write behind it. Parameters in a SELECT list are text unless cast.
  const casts: Partial<Record<(typeof RULE_ROW)[number], string>> = {
    is_favourite: '::integer',
    remove_csp_header: '::integer',
    creation_date: '::bigint',
    modification_date: '::bigint',
  };
  const claimedInsert = `with claimed as (insert into id_owners (id, object_type, workspace_id)
      values ($1, 'rule', $2) on conflict (id) do nothing returning id)
    insert into rules (${RULE_ROW.join(', ')})
    select ${RULE_ROW.map((name, i) => `$${i + 1}${casts[name] ?? ''}`).join(', ')} from claimed
    on conflict (id) do nothing`;
  type Changes = Omit<RuleRow, 'workspace_id' | 'rule_type' | 'created_by' | 'creation_date'>;
  const updated = prepared<Changes, never>(
    db,
    RULE_ROW.filter(
      (name): name is keyof Changes & (typeof RULE_ROW)[number] =>
        !['workspace_id', 'rule_type', 'created_by', 'creation_date'].includes(name),
    ),
    (db, { id, ...changes }) => db.updateTable('rules').set(changes).where('id', '=', id),
  );

  return {
    /** Inserts the rule; false when its id is taken (the caller retries with another). */
    async insert(trx: Db, row: RuleRow): Promise<boolean> {
      const result = await inserted.run(trx, row);
      return Number(result.numAffectedRows ?? 0) > 0;
    },

    /**
     * Inserts a new rule under an id drawn and claimed for its workspace now (`row.id` is set to it);
     * answers the id.
     */
    async insertNew(trx: Db, row: RuleRow): Promise<string> {
      if (dialect === 'postgres') {
        row.id = await drawIdWith('rule', row.rule_type, async (id) => {
          const parameters = RULE_ROW.map((name) => (name === 'id' ? id : row[name]));
          const result = await trx.executeQuery(CompiledQuery.raw(claimedInsert, parameters));
          return Number(result.numAffectedRows ?? 0) > 0;
        });
      } else {
        row.id = await drawId(trx, row.workspace_id, 'rule', row.rule_type);
        await inserted.run(trx, row);
      }
      return row.id;
    },

    /** The rule with that id in any workspace; locked for the transaction's write on PostgreSQL. */
    async find(trx: Db, id: string, lock = false): Promise<RuleRow | undefined> {
      return byId(trx, id, lock);
    },

    /** The rule with that id in any workspace, its API representation built by the database. */
    findJson: (id: string, owner: string) => jsonById.first(db, { id, owner }),

    async update(trx: Db, row: RuleRow): Promise<void> {
      await updated.run(trx, row);
    },

    async delete(trx: Db, id: string): Promise<void> {
      await trx.deleteFrom('rules').where('id', '=', id).execute();
    },

    /** A page of rules, each as the JSON text of its API representation. */
    async listJson(filter: RuleFilter, owner: string, offset: number, limit: number): Promise<string[]> {
      const params = filterParams(filter);
      const rows = await listQueriesFor(params, filter.sort).page.all(db, {
        ...params,
        owner,
        offset,
        limit,
      });
      return rows.map((row) => row.json);
    },

    async count(filter: RuleFilter): Promise<number> {
      const params = filterParams(filter);
      const row = await listQueriesFor(params).count.first(db, params);
      return Number(row?.n ?? 0);
    },
  };
}

export type RulesStore = ReturnType<typeof createRulesStore>;
