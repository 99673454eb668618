// The order of checks (decision 2) on its own: when several steps would fail, the earliest one answers,
// and a step that passes hands on to the next; nothing is looked up for an id of the wrong form.
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/errors.js';
import {
  checkInOrder,
  GROUPS,
  ifMatchHolds,
  RULES,
  readNowThrowLater,
  referenced,
  ruleTypeKept,
} from '../../src/http/checks.js';
import type { Principal } from '../../src/model/principal.js';

const alice: Principal = {
  via: 'key',
  keyId: 'k1',
  userId: 'u1',
  workspaceId: 'w1',
  ownerUserId: 'u1',
  role: 'owner',
};
const ours = { id: 'Redirect_abcde', workspace_id: 'w1', rule_type: 'Redirect', modification_date: 5 };
const theirs = { ...ours, workspace_id: 'w2' };

/** The code of the error `run` throws, or 'passed'. */
async function outcome(run: () => Promise<unknown> | unknown): Promise<string> {
  try {
    await run();
    return 'passed';
  } catch (error) {
    if (error instanceof AppError) return error.code;
    throw error;
  }
}

/** A PUT of a rule through every step; 'bad' as the body is one the body step refuses. */
function put(row: typeof ours | undefined, options: { ifMatch?: string; body: unknown; id?: string }) {
  return checkInOrder(alice, options.id ?? ours.id, {
    kind: RULES,
    find: async () => row,
    precondition: ifMatchHolds(options.ifMatch),
    unchanged: ruleTypeKept(options.body),
    body: readNowThrowLater(() => {
      if (options.body === 'bad') throw new AppError('RULE_PAYLOAD_INVALID');
      return options.body;
    }),
  });
}

describe('checkInOrder', () => {
  it('answers the earliest failing step: existence, access, If-Match, ruleType, body', async () => {
    const wrongType = { ruleType: 'Cancel' };
    expect(await outcome(() => put(undefined, { ifMatch: '"1"', body: 'bad' }))).toBe('RULE_NOT_FOUND');
    expect(await outcome(() => put(theirs, { ifMatch: '"1"', body: 'bad' }))).toBe('UNAUTHORIZED_ACTION');
    expect(await outcome(() => put(ours, { ifMatch: '"1"', body: wrongType }))).toBe('PRECONDITION_FAILED');
    expect(await outcome(() => put(ours, { ifMatch: '"5"', body: wrongType }))).toBe(
      'RULE_TYPE_UPDATE_NOT_ALLOWED',
    );
    expect(await outcome(() => put(ours, { body: 'bad' }))).toBe('RULE_PAYLOAD_INVALID');
    const passed = await put(ours, { ifMatch: '"5"', body: { ruleType: 'Redirect', name: 'n' } });
    expect(passed).toEqual({ row: ours, body: { ruleType: 'Redirect', name: 'n' } });
  });

  it('checks the id form before looking anything up', async () => {
    let looked = false;
    const find = async () => {
      looked = true;
      return undefined;
    };
    expect(await outcome(() => checkInOrder(alice, 'Group_no-dash', { kind: GROUPS, find }))).toBe(
      'INVALID_GROUP_ID',
    );
    expect(await outcome(() => checkInOrder(alice, 'Rule_\0', { kind: RULES, find }))).toBe('RULE_NOT_FOUND');
    expect(looked).toBe(false);
    expect(await outcome(() => checkInOrder(alice, 'Group_ok1', { kind: GROUPS, find }))).toBe(
      'GROUP_NOT_FOUND',
    );
    expect(looked).toBe(true);
  });

  it('answers at once an object found at once (a read model’s), and the same way as one awaited', async () => {
    const found = checkInOrder(alice, ours.id, { kind: RULES, find: () => ours });
    expect(found).toEqual({ row: ours, body: undefined });
    expect(await outcome(() => checkInOrder(alice, ours.id, { kind: RULES, find: () => theirs }))).toBe(
      'UNAUTHORIZED_ACTION',
    );
    expect(await outcome(() => checkInOrder(alice, ours.id, { kind: RULES, find: () => undefined }))).toBe(
      'RULE_NOT_FOUND',
    );
  });

  it('takes only the steps given', async () => {
    expect(await checkInOrder(alice, ours.id, { kind: RULES, find: async () => ours })).toEqual({
      row: ours,
      body: undefined,
    });
  });
});

describe('the steps', () => {
  it('If-Match holds when absent, *, or listing the version', () => {
    for (const header of [undefined, '*', '"5"', '"4", "5"'])
      expect(() => ifMatchHolds(header)(ours)).not.toThrow();
    expect(() => ifMatchHolds('"4"')(ours)).toThrow(AppError);
  });

  it('a body without ruleType, or with the stored one, keeps it', () => {
    for (const body of [{}, { ruleType: 'Redirect' }, 'not an object', null])
      expect(() => ruleTypeKept(body)(ours)).not.toThrow();
    expect(() => ruleTypeKept({ ruleType: 'Delay' })(ours)).toThrow(AppError);
  });

  it('a body read now gives its value later, or throws its error later', () => {
    let reads = 0;
    const good = readNowThrowLater(() => ++reads);
    expect(reads).toBe(1);
    expect(good()).toBe(1);
    expect(good()).toBe(1);
    const bad = readNowThrowLater(() => {
      throw new AppError('GROUP_PAYLOAD_INVALID');
    });
    expect(() => bad()).toThrow(AppError);
  });

  it('a reference is 404 when missing and 403 when another workspace’s, both naming where', async () => {
    const detail = { path: '/groupId', message: 'group "Group_x"' };
    expect(referenced(ours, alice, 'GROUP_NOT_FOUND', detail)).toBe(ours);
    for (const [row, code] of [
      [undefined, 'GROUP_NOT_FOUND'],
      [theirs, 'UNAUTHORIZED_ACTION'],
    ] as const) {
      try {
        referenced(row, alice, 'GROUP_NOT_FOUND', detail);
        expect.unreachable();
      } catch (error) {
        expect(error).toMatchObject({ code, details: [detail] });
      }
    }
  });
});
