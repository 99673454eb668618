// A change request's operations checked as the direct routes check their bodies (the same readers,
// the same order of checks, the same errors, pointed at `/operations/N/...`), and what each does to
// the workspace's rules and groups, for the evidence to apply in memory.
import type { Db, GroupRow, RuleRow } from '../../db/tables.js';
import { AppError, type ErrorDetail } from '../../errors.js';
import { checkInOrder, GROUPS, RULES, referenced, ruleTypeKept } from '../../http/checks.js';
import { isPlainObject } from '../../http/payload.js';
import type { Principal } from '../../model/principal.js';
import { cspColumn, removesCsp } from '../../model/rule.js';
import type { RuleType } from '../../model/rule-types/index.js';
import { readGroupWrite } from '../groups/groups-input.js';
import { readRule } from '../rules/rules-input.js';
import { LOCAL_REF_PATTERN, type Operation } from './change-requests-schemas.js';

/** What an operation does, as the evidence applies it to the rules before (in memory). */
export type Effect =
  | { kind: 'rule'; op: 'create'; id: string; rule: EffectRule }
  | { kind: 'rule'; op: 'update'; id: string; patch: Partial<EffectRule> }
  | { kind: 'rule'; op: 'delete'; id: string }
  | { kind: 'group'; op: 'create'; id: string; status: string }
  | { kind: 'group'; op: 'update'; id: string; status?: string }
  | { kind: 'group'; op: 'delete'; id: string };

/** A rule's fields the evidence's jobs read (as ListedRuleRow, but its group by id alone). */
export interface EffectRule {
  name: string;
  ruleType: string;
  status: string;
  groupId: string | null;
  pairs: string;
  removeCSPHeader?: boolean;
}

export interface Finders {
  rule(trx: Db, id: string): Promise<RuleRow | undefined>;
  group(trx: Db, id: string): Promise<GroupRow | undefined>;
}

const localRef = new RegExp(LOCAL_REF_PATTERN);
const isRef = (value: unknown): value is string => typeof value === 'string' && value.startsWith('$');

/**
 * `error` as the operation at `at` answers it: a body's problems pointed inside its body, a refusal of
 * the object itself (not found, another workspace's) at its id.
 */
function pointed(error: AppError, at: string, what: string): never {
  // The id's form is checked as a path's is (`/id`): in an operation, the id is beside the body.
  const details: ErrorDetail[] = error.details?.length
    ? error.details.map((d) => ({ ...d, path: d.path === '/id' ? `${at}/id` : `${at}/body${d.path}` }))
    : [{ path: `${at}/id`, message: what }];
  throw new AppError(error.code, details, error.retryAfterSeconds);
}

const invalid = (path: string, message: string) =>
  new AppError('CHANGE_REQUEST_PAYLOAD_INVALID', [{ path, message }]);

/**
 * Every operation checked in order (the first refused stops: its error is the direct route's), an
 * object touched at most once, a `$name` given to at most one new group and every `$name` used in a
 * `groupId` given; answers what each does.
 */
export async function checkOperations(
  trx: Db,
  principal: Principal,
  operations: Operation[],
  finders: Finders,
  maxDelayMs: number,
): Promise<Effect[]> {
  const touched = new Set<string>();
  const refs = new Set<string>();
  operations.forEach((operation, i) => {
    if (operation.kind === 'group' && operation.op === 'create' && operation.id !== undefined) {
      if (!localRef.test(operation.id))
        throw invalid(`/operations/${i}/id`, 'a new group is named only by a local name like "$staging"');
      if (refs.has(operation.id)) throw invalid(`/operations/${i}/id`, 'this local name is given twice');
      refs.add(operation.id);
    }
  });
  const effects: Effect[] = [];
  for (const [i, operation] of operations.entries()) {
    const at = `/operations/${i}`;
    const { op, kind, id, body } = operation;
    if (op === 'create' && kind === 'rule' && id !== undefined)
      throw invalid(`${at}/id`, "a new rule's id is drawn when it is merged: leave it out");
    if (op !== 'create' && id === undefined) throw invalid(`${at}/id`, `an ${op} names its ${kind}`);
    if (op === 'delete' && body !== undefined) throw invalid(`${at}/body`, 'a delete takes no body');
    if (op !== 'delete' && body === undefined) throw invalid(`${at}/body`, `a ${op} needs a body`);
    if (id !== undefined && op !== 'create') {
      const key = `${kind} ${id}`;
      if (touched.has(key)) throw invalid(`${at}/id`, `this ${kind} is changed by another operation already`);
      touched.add(key);
    }
    // A rule's groupId may name a group this change request creates: checked here, not as a stored one.
    let groupRef: string | undefined;
    let checkedBody = body;
    if (kind === 'rule' && isPlainObject(body) && isRef(body.groupId)) {
      groupRef = body.groupId;
      if (!refs.has(groupRef))
        throw new AppError('GROUP_NOT_FOUND', [
          { path: `${at}/body/groupId`, message: `no group of this change request is called "${groupRef}"` },
        ]);
      checkedBody = { ...body, groupId: '' };
    }
    try {
      effects.push(
        await effectOf(trx, principal, { op, kind, id, body: checkedBody }, groupRef, finders, maxDelayMs, i),
      );
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      if (error.details?.some((d) => d.path.startsWith('/operations'))) throw error;
      pointed(error, at, `${kind} "${id ?? ''}"`);
    }
  }
  return effects;
}

async function effectOf(
  trx: Db,
  principal: Principal,
  { op, kind, id = '', body }: Operation,
  groupRef: string | undefined,
  finders: Finders,
  maxDelayMs: number,
  index: number,
): Promise<Effect> {
  const groupOf = async (groupId: string | undefined): Promise<string | null | undefined> => {
    if (groupRef) return groupRef;
    if (groupId === undefined) return undefined;
    if (groupId === '') return null;
    const detail = { path: `/operations/${index}/body/groupId`, message: `group "${groupId}"` };
    return referenced(await finders.group(trx, groupId), principal, 'GROUP_NOT_FOUND', detail).id;
  };
  if (kind === 'rule') {
    if (op === 'create') {
      const { write, pairs = [] } = readRule(body, { creating: true, maxDelayMs });
      const ruleType = write.ruleType as RuleType;
      const csp = cspColumn(ruleType, write.removeCSPHeader);
      return {
        kind,
        op,
        id: `new:${index}`,
        rule: {
          name: write.name ?? '',
          ruleType,
          status: write.status ?? 'Inactive',
          groupId: (await groupOf(write.groupId)) ?? null,
          pairs: JSON.stringify(pairs),
          ...(ruleType === 'Script'
            ? { removeCSPHeader: removesCsp({ rule_type: ruleType, remove_csp_header: csp }) }
            : {}),
        },
      };
    }
    if (op === 'update') {
      const { row, body: input } = await checkInOrder(principal, id, {
        kind: RULES,
        find: () => finders.rule(trx, id),
        unchanged: ruleTypeKept(body),
        body: (row) => readRule(body, { creating: false, storedType: row.rule_type as RuleType, maxDelayMs }),
      });
      const { write, pairs } = input;
      const groupId = await groupOf(write.groupId);
      const patch: Partial<EffectRule> = {};
      if (write.name !== undefined) patch.name = write.name;
      if (write.status !== undefined) patch.status = write.status;
      if (groupId !== undefined) patch.groupId = groupId;
      if (pairs) patch.pairs = JSON.stringify(pairs);
      if (row.rule_type === 'Script' && write.removeCSPHeader !== undefined)
        patch.removeCSPHeader = write.removeCSPHeader;
      return { kind, op, id, patch };
    }
    await checkInOrder(principal, id, { kind: RULES, find: () => finders.rule(trx, id) });
    return { kind, op: 'delete', id };
  }
  if (op === 'create') {
    const write = readGroupWrite(body, true);
    return { kind, op, id: id || `new:${index}`, status: write.status ?? 'Active' };
  }
  if (op === 'update') {
    const { body: write } = await checkInOrder(principal, id, {
      kind: GROUPS,
      find: () => finders.group(trx, id),
      body: () => readGroupWrite(body, false),
    });
    return { kind, op, id, ...(write.status === undefined ? {} : { status: write.status }) };
  }
  await checkInOrder(principal, id, { kind: GROUPS, find: () => finders.group(trx, id) });
  return { kind, op: 'delete', id };
}
