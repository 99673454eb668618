// The order of checks, written down once. Every route on a stored object follows it by
// calling `checkInOrder`; a request with no object in its path (a create, a trace) starts at step 7.
//
//   1. the key: none, or one unknown, revoked or expired, is 401; then its scope: a key whose scope
//      does not reach the route's (`config.scope`; a `read` key on a write) is 403 naming its scope
//      (both in the api-key-auth hooks, before the body is read or any handler runs);
//   2. the id in the path: its form (`Invalid Group Id`; a rule id of any form is only ever not found);
//   3. existence: no such object in any workspace is 404;
//   4. access: another workspace's object is 403;
//   5. If-Match on a write: an object changed since is 412;
//   6. what a write may not change: a rule's `ruleType` (400 `Rule Type update not allowed`);
//   7. the body: 400 with every problem in it;
//   8. references inside the body (a `groupId`, a rule id) last: 404 or 403 naming where they are.
//
// So an invalid body on someone else's rule is 403, not 400, and a read key's write is 403 whatever
// its id or body. A body is parsed before all this (the
// parser hands a malformed one on, payload.ts) and its problems are thrown at step 7.
import { AppError, type ErrorCode, type ErrorDetail } from '../errors.js';
import { GROUP_ID_PATTERN } from '../model/group.js';
import type { Principal } from '../model/principal.js';
import { checkIfMatch } from './etag.js';
import { isPlainObject, isStorableText } from './payload.js';

/** A stored object: it belongs to one workspace. */
export interface Owned {
  workspace_id: string;
}

/** What steps 2 and 3 need to know of a kind of object. */
export interface StoredKind {
  /** Step 2: throws when `id` cannot name an object of this kind. */
  checkIdForm(id: string): void;
  /** Step 3's error. */
  notFound: ErrorCode;
}

export const RULES: StoredKind = {
  // A rule id of any form is simply not found, but no stored id holds such text, and PostgreSQL
  // would refuse to even compare it.
  checkIdForm(id) {
    if (!isStorableText(id)) throw new AppError('RULE_NOT_FOUND');
  },
  notFound: 'RULE_NOT_FOUND',
};

export const GROUPS: StoredKind = {
  checkIdForm(id) {
    if (!GROUP_ID_PATTERN.test(id)) {
      throw new AppError('INVALID_GROUP_ID', [
        { path: '/id', message: 'must be Group_ followed by 1 to 32 letters or digits' },
      ]);
    }
  },
  notFound: 'GROUP_NOT_FOUND',
};

/** The steps of one request on an object; those it does not take are left out. */
export interface Steps<Row extends Owned, Body> {
  kind: StoredKind;
  /** Step 3: the object with the id in any workspace (in a write's transaction, locked). */
  find(): Row | undefined | Promise<Row | undefined>;
  /** Step 5 (see `ifMatchHolds`). */
  precondition?(row: NoInfer<Row>): void;
  /** Step 6 (see `ruleTypeKept`). */
  unchanged?(row: NoInfer<Row>): void;
  /** Step 7: the body read, or its error thrown (see `readNowThrowLater`). */
  body?(row: NoInfer<Row>): Body;
}

/** The object of a request, when it may be touched, and its body read. */
export interface Checked<Row, Body> {
  row: Row;
  body: Body;
}

/**
 * Steps 2 to 7 in their order: the object, when it may be touched, and the body read. Step 8 is the
 * caller's, with `referenced`, once it has the body. To be awaited; an object found at once (a read
 * model's) is answered at once, without a promise: the hottest reads wait on nothing more.
 */
export function checkInOrder<Row extends Owned, Body = undefined>(
  principal: Principal,
  id: string,
  steps: Steps<Row, Body>,
): Checked<Row, Body> | Promise<Checked<Row, Body>> {
  steps.kind.checkIdForm(id);
  const afterFind = (found: Row | undefined): Checked<Row, Body> => {
    const row = accessible(found, principal, steps.kind.notFound);
    steps.precondition?.(row);
    steps.unchanged?.(row);
    return { row, body: steps.body?.(row) as Body };
  };
  const found = steps.find();
  return found instanceof Promise ? found.then(afterFind) : afterFind(found);
}

/** Steps 3 and 4 on what was found: the row, when it exists and is of the caller's workspace. */
export function accessible<T extends Owned>(
  row: T | undefined,
  principal: Principal,
  notFound: ErrorCode,
): T {
  if (!row) throw new AppError(notFound);
  if (row.workspace_id !== principal.workspaceId) throw new AppError('UNAUTHORIZED_ACTION');
  return row;
}

/** Step 5: unless `ifMatch` (the header as sent) is absent or `*`, it must name the row's version. */
export const ifMatchHolds =
  (header: string | undefined) =>
  (row: { modification_date: number }): void =>
    checkIfMatch(header, { modificationDate: row.modification_date });

/** Step 6 for a PUT of a rule: a `ruleType` in the body must be the stored one. */
export const ruleTypeKept =
  (body: unknown) =>
  (row: { rule_type: string }): void => {
    if (isPlainObject(body) && body.ruleType !== undefined && body.ruleType !== row.rule_type) {
      throw new AppError('RULE_TYPE_UPDATE_NOT_ALLOWED', [
        { path: '/ruleType', message: `is "${row.rule_type}" and cannot change` },
      ]);
    }
  };

/**
 * Step 7 for a body read before the transaction opens (so that no lock waits on it): `read` runs now,
 * and the function returned gives its result or throws its error, after steps 2 to 6.
 */
export function readNowThrowLater<T>(read: () => T): () => T {
  try {
    const value = read();
    return () => value;
  } catch (error) {
    return () => {
      throw error;
    };
  }
}

/**
 * Step 8: an object a body refers to (at `detail.path`), found or not: 404 `notFound` when there is
 * none, 403 when it is another workspace's.
 */
export function referenced<T extends Owned>(
  row: T | undefined,
  principal: Principal,
  notFound: ErrorCode,
  detail: ErrorDetail,
): T {
  if (!row) throw new AppError(notFound, [detail]);
  if (row.workspace_id !== principal.workspaceId) throw new AppError('UNAUTHORIZED_ACTION', [detail]);
  return row;
}
