// /v1/rules: create with defaults, read, merge-update, delete, every rule error and the order of checks.
import { describe, expect, it } from 'vitest';
import { RULE_FIELDS } from '../../src/model/rule.js';
import {
  at,
  cancelPair,
  createGroup,
  createRule,
  detailPaths,
  expectError,
  GENERATED_SUFFIX,
  getRule,
  maybe,
  rawJson,
  redirectPair,
  ruleIdOf,
  snapshot,
  uniqueName,
  within,
} from '../helpers/fixtures.js';
import { forEachDatabase, useTestApp } from '../helpers/test-app.js';

forEachDatabase((db) => {
  const t = useTestApp({ db });

  /** A valid Redirect body with a unique name. */
  const validBody = (fields: Record<string, unknown> = {}) => ({
    name: uniqueName('rule'),
    ruleType: 'Redirect',
    pairs: [redirectPair()],
    ...fields,
  });

  describe('POST /v1/rules', () => {
    it('creates a rule with defaults and answers 201 with every field and a Location', async () => {
      const body = validBody();
      const before = Date.now();
      const reply = await t.call('POST', '/v1/rules', { body });
      const after = Date.now();
      expect(reply.status).toBe(201);
      expect(reply.body).toStrictEqual({
        success: true,
        data: {
          id: expect.stringMatching(ruleIdOf('Redirect')),
          name: body.name,
          description: '',
          status: 'Inactive',
          isFavourite: false,
          ruleType: 'Redirect',
          groupId: '',
          pairs: [{ id: expect.stringMatching(GENERATED_SUFFIX), ...redirectPair() }],
          createdBy: t.owner.userId,
          creationDate: within(before, after),
          lastModifiedBy: t.owner.userId,
          modificationDate: reply.body.data.creationDate,
          currentOwner: t.owner.userId,
          objectType: 'rule',
        },
        warnings: expect.any(Array),
      });
      expect(reply.headers.location).toBe(`/v1/rules/${reply.body.data.id}`);
      expect(await getRule(t, reply.body.data.id)).toStrictEqual(reply.body.data);
    });

    it('stores every writable field given', async () => {
      const group = await createGroup(t);
      const body = validBody({
        ruleType: 'Cancel',
        pairs: [cancelPair('a.example.com'), cancelPair('b.example.com')],
        description: 'Blocks two hosts',
        status: 'Active',
        groupId: group.id,
      });
      const reply = await t.call('POST', '/v1/rules', { body });
      expect(reply.status).toBe(201);
      const data = reply.body.data;
      expect(data).toStrictEqual({
        ...data,
        id: expect.stringMatching(ruleIdOf('Cancel')),
        name: body.name,
        description: 'Blocks two hosts',
        status: 'Active',
        ruleType: 'Cancel',
        groupId: group.id,
        pairs: [
          { id: expect.stringMatching(GENERATED_SUFFIX), ...cancelPair('a.example.com') },
          { id: expect.stringMatching(GENERATED_SUFFIX), ...cancelPair('b.example.com') },
        ],
      });
      // Every field of the schema, in its order, as a read answers them too.
      expect(Object.keys(data)).toEqual(RULE_FIELDS);
      expect(data.pairs[0].id).not.toBe(data.pairs[1].id);
      expect(await getRule(t, data.id)).toStrictEqual(data);
    });

    it('keeps pair ids the client sends and generates the others', async () => {
      const rule = await createRule(t, {
        pairs: [
          { id: 'keepMe1', ...cancelPair('a.example.com') },
          cancelPair('b.example.com'),
          { id: 'X', ...cancelPair('c.example.com') },
          { id: 'a'.repeat(32), ...cancelPair('d.example.com') },
        ],
      });
      const ids = (rule.pairs as { id: string }[]).map((pair) => pair.id);
      expect(ids[0]).toBe('keepMe1');
      expect(ids[1]).toMatch(GENERATED_SUFFIX);
      expect(ids[2]).toBe('X');
      expect(ids[3]).toBe('a'.repeat(32));
      expect((await getRule(t, rule.id)).pairs).toStrictEqual(rule.pairs);
    });

    it('generates a distinct id of the rule type and 5 characters for every rule', async () => {
      const ids = new Set<string>();
      for (let i = 0; i < 5; i++) {
        const rule = await createRule(t);
        expect(rule.id).toMatch(ruleIdOf('Cancel'));
        ids.add(rule.id as string);
      }
      expect(ids.size).toBe(5);
    });

    it("gives a teammate's rule the teammate as creator and the owner as currentOwner", async () => {
      const rule = await createRule(t, {}, t.teammate.key);
      expect(rule).toMatchObject({
        createdBy: t.teammate.userId,
        lastModifiedBy: t.teammate.userId,
        currentOwner: t.owner.userId,
      });
    });

    it('accepts a name of 256 characters after trimming, a description of 4096, and 100 pairs', async () => {
      const longest = 'n'.repeat(256);
      const pairs = Array.from({ length: 100 }, (_, i) => cancelPair(`host${i}.example.com`));
      const rule = await createRule(t, { name: ` ${longest} `, description: 'd'.repeat(4096), pairs });
      expect(rule.name).toBe(longest);
      expect(rule.description).toBe('d'.repeat(4096));
      expect(rule.pairs).toHaveLength(100);
      expect(await getRule(t, rule.id)).toStrictEqual(rule);
    });

    it("ignores read-only fields, Requestly's included (a Script's removeCSPHeader on another type)", async () => {
      const body = validBody({
        id: 'Redirect_mine1',
        objectType: 'group',
        createdBy: 'someone',
        creationDate: 1,
        lastModifiedBy: 'someone',
        modificationDate: 2,
        currentOwner: 'someone',
        currentOwnerId: 'someone',
        isSample: true,
        isFavourite: true,
        isReadOnly: true,
        schemaVersion: '3.0.0',
        extensionRules: [{ id: 1 }],
        preserveCookie: false,
        version: 2,
        removeCSPHeader: true,
      });
      const before = Date.now();
      const reply = await t.call('POST', '/v1/rules', { body });
      expect(reply.status).toBe(201);
      const data = reply.body.data;
      expect(data).toStrictEqual({
        id: expect.stringMatching(ruleIdOf('Redirect')),
        name: body.name,
        description: '',
        status: 'Inactive',
        isFavourite: true,
        ruleType: 'Redirect',
        groupId: '',
        pairs: [{ id: expect.stringMatching(GENERATED_SUFFIX), ...redirectPair() }],
        createdBy: t.owner.userId,
        creationDate: within(before, Date.now()),
        lastModifiedBy: t.owner.userId,
        modificationDate: data.creationDate,
        currentOwner: t.owner.userId,
        objectType: 'rule',
      });
      expect(data.id).not.toBe('Redirect_mine1');
      expectError(await t.call('GET', '/v1/rules/Redirect_mine1'), 'RULE_NOT_FOUND');
    });
  });

  describe('GET /v1/rules/:ruleId', () => {
    it('answers the stored rule', async () => {
      const rule = await createRule(t, { status: 'Active', description: 'x' });
      const reply = await t.call('GET', `/v1/rules/${rule.id}`);
      expect(reply.status).toBe(200);
      expect(reply.body).toStrictEqual({ success: true, data: rule });
    });
  });

  describe('PUT /v1/rules/:ruleId', () => {
    it('merges: only the supplied fields change', async () => {
      const group = await createGroup(t);
      const rule = await createRule(t, { description: 'before', groupId: group.id });
      const name = uniqueName('renamed');
      const reply = await t.call('PUT', `/v1/rules/${rule.id}`, { body: { name } });
      expect(reply.status).toBe(200);
      expect(reply.body).toStrictEqual({
        success: true,
        data: { ...rule, name, modificationDate: expect.any(Number) },
        warnings: expect.any(Array),
      });
      expect(reply.body.data.modificationDate).toBeGreaterThan(rule.modificationDate as number);
      expect(await getRule(t, rule.id)).toStrictEqual(reply.body.data);

      const second = await t.call('PUT', `/v1/rules/${rule.id}`, {
        body: { status: 'Active', description: '' },
      });
      expect(second.status).toBe(200);
      expect(second.body.data).toStrictEqual({
        ...reply.body.data,
        status: 'Active',
        description: '',
        modificationDate: expect.any(Number),
      });
      expect(await getRule(t, rule.id)).toStrictEqual(second.body.data);
    });

    it('toggles the status both ways, moving modificationDate strictly forward each time', async () => {
      const rule = await createRule(t);
      let previous = rule;
      for (const status of ['Active', 'Inactive', 'Active', 'Inactive']) {
        const reply = await t.call('PUT', `/v1/rules/${rule.id}`, { body: { status } });
        expect(reply.status).toBe(200);
        expect(reply.body.data).toStrictEqual({ ...previous, status, modificationDate: expect.any(Number) });
        expect(reply.body.data.modificationDate).toBeGreaterThan(previous.modificationDate as number);
        previous = reply.body.data;
      }
      expect(await getRule(t, rule.id)).toStrictEqual(previous);
    });

    it('replaces all pairs when pairs are given', async () => {
      const rule = await createRule(t, {
        pairs: [cancelPair('a.example.com'), cancelPair('b.example.com'), cancelPair('c.example.com')],
      });
      const reply = await t.call('PUT', `/v1/rules/${rule.id}`, {
        body: { pairs: [{ id: 'only1', ...cancelPair('z.example.com') }] },
      });
      expect(reply.status).toBe(200);
      expect(reply.body.data).toStrictEqual({
        ...rule,
        pairs: [{ id: 'only1', ...cancelPair('z.example.com') }],
        modificationDate: expect.any(Number),
      });
      expect(await getRule(t, rule.id)).toStrictEqual(reply.body.data);
    });

    it('moves a rule to another group and ungroups it with groupId ""', async () => {
      const first = await createGroup(t);
      const second = await createGroup(t);
      const rule = await createRule(t, { groupId: first.id });

      const moved = await t.call('PUT', `/v1/rules/${rule.id}`, { body: { groupId: second.id } });
      expect(moved.status).toBe(200);
      expect(moved.body.data).toStrictEqual({
        ...rule,
        groupId: second.id,
        modificationDate: expect.any(Number),
      });
      expect(await getRule(t, rule.id)).toStrictEqual(moved.body.data);

      const ungrouped = await t.call('PUT', `/v1/rules/${rule.id}`, { body: { groupId: '' } });
      expect(ungrouped.status).toBe(200);
      expect(ungrouped.body.data).toStrictEqual({
        ...rule,
        groupId: '',
        modificationDate: expect.any(Number),
      });
      expect(await getRule(t, rule.id)).toStrictEqual(ungrouped.body.data);

      const regrouped = await t.call('PUT', `/v1/rules/${rule.id}`, { body: { groupId: first.id } });
      expect(regrouped.status).toBe(200);
      expect((await getRule(t, rule.id)).groupId).toBe(first.id);
    });

    it('accepts the stored ruleType sent again', async () => {
      const rule = await createRule(t);
      const reply = await t.call('PUT', `/v1/rules/${rule.id}`, {
        body: { ruleType: 'Cancel', status: 'Active' },
      });
      expect(reply.status).toBe(200);
      expect(reply.body.data).toStrictEqual({
        ...rule,
        status: 'Active',
        modificationDate: expect.any(Number),
      });
    });

    it.each(['Redirect', 'Headers', 'cancel'])(
      'refuses a change of ruleType to %s with Rule Type update not allowed, changing nothing',
      async (ruleType) => {
        const rule = await createRule(t);
        const reply = await t.call('PUT', `/v1/rules/${rule.id}`, {
          body: { ruleType, name: 'new name', pairs: [redirectPair()] },
        });
        expectError(reply, 'RULE_TYPE_UPDATE_NOT_ALLOWED', [at('/ruleType')]);
        expect(await getRule(t, rule.id)).toStrictEqual(rule);
      },
    );

    it('records the teammate as lastModifiedBy when the teammate edits', async () => {
      const rule = await createRule(t);
      const reply = await t.call('PUT', `/v1/rules/${rule.id}`, {
        key: t.teammate.key,
        body: { description: 'edited by bob' },
      });
      expect(reply.status).toBe(200);
      expect(reply.body.data).toStrictEqual({
        ...rule,
        description: 'edited by bob',
        createdBy: t.owner.userId,
        lastModifiedBy: t.teammate.userId,
        modificationDate: expect.any(Number),
      });
    });

    it('ignores read-only fields sent back from a GET', async () => {
      const rule = await createRule(t);
      const name = uniqueName('round trip');
      const reply = await t.call('PUT', `/v1/rules/${rule.id}`, {
        key: t.teammate.key,
        body: {
          ...rule,
          name,
          id: 'Cancel_other',
          createdBy: 'x',
          creationDate: 1,
          currentOwner: 'x',
          isSample: false,
          schemaVersion: '3.0.0',
          version: 1,
        },
      });
      expect(reply.status).toBe(200);
      expect(reply.body.data).toStrictEqual({
        ...rule,
        name,
        lastModifiedBy: t.teammate.userId,
        modificationDate: expect.any(Number),
      });
      expect(await getRule(t, rule.id)).toStrictEqual(reply.body.data);
    });
  });

  describe('DELETE /v1/rules/:ruleId', () => {
    it('deletes the rule, which is then not found', async () => {
      const group = await createGroup(t);
      const rule = await createRule(t, { groupId: group.id });
      const reply = await t.call('DELETE', `/v1/rules/${rule.id}`);
      expect(reply.status).toBe(200);
      expect(reply.body).toStrictEqual({ success: true, message: 'Rule deleted successfully' });
      expectError(await t.call('GET', `/v1/rules/${rule.id}`), 'RULE_NOT_FOUND');
      expectError(await t.call('DELETE', `/v1/rules/${rule.id}`), 'RULE_NOT_FOUND');
      expectError(await t.call('PUT', `/v1/rules/${rule.id}`, { body: { name: 'x' } }), 'RULE_NOT_FOUND');
      const list = await t.call('GET', `/v1/rules?search=${encodeURIComponent(rule.name as string)}`);
      expect(list.body.data).toEqual([]);
      const groups = await t.call('GET', '/v1/groups');
      expect(groups.body.data.find((g: { id: unknown }) => g.id === group.id)).toMatchObject({
        ruleCount: 0,
      });
    });
  });

  describe('Rule Payload is invalid', () => {
    it.each([
      ['an array', '[]'],
      ['a string', '"rule"'],
      ['a number', '7'],
      ['null', 'null'],
      ['malformed JSON', '{"name": "x", "ruleType": '],
      ['an empty body', ''],
    ])('POST with %s as body', async (_title, text) => {
      const before = await snapshot(t);
      expectError(await t.call('POST', '/v1/rules', rawJson(text)), 'RULE_PAYLOAD_INVALID', [at('')]);
      expect(await snapshot(t)).toStrictEqual(before);
    });

    it.each([
      ['an unknown top-level field', { colour: 'red' }, '/colour'],
      ['an unknown field with a slash and a tilde', { 'a/b~c': 1 }, '/a~1b~0c'],
      ['a misspelt field', { pair: [] }, '/pair'],
      ['a name that is not a string', { name: 42 }, '/name'],
      ['an empty name', { name: '' }, '/name'],
      ['a blank name', { name: ' \t  ' }, '/name'],
      ['a name of 257 characters', { name: 'n'.repeat(257) }, '/name'],
      ['a status in the wrong case', { status: 'active' }, '/status'],
      ['a status not allowed', { status: 'Enabled' }, '/status'],
      ['a status that is not a string', { status: 1 }, '/status'],
      ['a description of 4097 characters', { description: 'd'.repeat(4097) }, '/description'],
      ['a description that is not a string', { description: ['x'] }, '/description'],
      ['an unknown rule type', { ruleType: 'Teleport' }, '/ruleType'],
      ['a rule type in the wrong case', { ruleType: 'redirect' }, '/ruleType'],
      ['a groupId that is not a string', { groupId: 12 }, '/groupId'],
      ['pairs that are an object', { pairs: { 0: redirectPair() } }, '/pairs'],
      ['pairs that are a string', { pairs: 'none' }, '/pairs'],
      ['pairs that are null', { pairs: null }, '/pairs'],
    ])('POST with %s names it', async (_title, fields, path) => {
      const before = await snapshot(t);
      const reply = await t.call('POST', '/v1/rules', { body: validBody(fields) });
      expectError(reply, 'RULE_PAYLOAD_INVALID', [at(path)]);
      expect(await snapshot(t)).toStrictEqual(before);
    });

    it.each([
      ['name', '/name'],
      ['ruleType', '/ruleType'],
      ['pairs', '/pairs'],
    ])('POST without %s names it', async (field, path) => {
      const body: Record<string, unknown> = validBody();
      delete body[field];
      const before = await snapshot(t);
      expectError(await t.call('POST', '/v1/rules', { body }), 'RULE_PAYLOAD_INVALID', [at(path)]);
      expect(await snapshot(t)).toStrictEqual(before);
    });

    it('POST with ruleType Header hints at Headers', async () => {
      const reply = await t.call('POST', '/v1/rules', {
        body: validBody({ ruleType: 'Header', pairs: [{ source: cancelPair().source, modifications: [] }] }),
      });
      expectError(reply, 'RULE_PAYLOAD_INVALID', [at('/ruleType', expect.stringContaining('Headers'))]);
    });

    it('reports every problem of the payload at once', async () => {
      const reply = await t.call('POST', '/v1/rules', {
        body: { description: 5, status: 'On', extra: true },
      });
      expect(reply.body.code).toBe('RULE_PAYLOAD_INVALID');
      expect(detailPaths(reply)).toEqual([
        '/description',
        '/extra',
        '/name',
        '/pairs',
        '/ruleType',
        '/status',
      ]);
    });

    it.each([
      ['an unknown field', { colour: 'red' }, '/colour'],
      ['a blank name', { name: '   ' }, '/name'],
      ['a bad status', { status: 'on' }, '/status'],
      ['pairs not an array', { pairs: {} }, '/pairs'],
      ['a description too long', { description: 'd'.repeat(4097) }, '/description'],
    ])('PUT with %s is refused and changes nothing', async (_title, body, path) => {
      const rule = await createRule(t);
      expectError(await t.call('PUT', `/v1/rules/${rule.id}`, { body }), 'RULE_PAYLOAD_INVALID', [at(path)]);
      expect(await getRule(t, rule.id)).toStrictEqual(rule);
    });

    it.each([
      ['malformed JSON', '{"name":'],
      ['an array', '[{"name":"x"}]'],
    ])('PUT with %s as body is refused and changes nothing', async (_title, text) => {
      const rule = await createRule(t);
      expectError(await t.call('PUT', `/v1/rules/${rule.id}`, rawJson(text)), 'RULE_PAYLOAD_INVALID', [
        at(''),
      ]);
      expect(await getRule(t, rule.id)).toStrictEqual(rule);
    });
  });

  describe('Rule pairs are invalid', () => {
    it('POST with no pairs', async () => {
      const before = await snapshot(t);
      expectError(
        await t.call('POST', '/v1/rules', { body: validBody({ pairs: [] }) }),
        'RULE_PAIRS_INVALID',
        [at('/pairs')],
      );
      expect(await snapshot(t)).toStrictEqual(before);
    });

    it('POST with 101 pairs', async () => {
      const pairs = Array.from({ length: 101 }, () => redirectPair());
      const before = await snapshot(t);
      expectError(await t.call('POST', '/v1/rules', { body: validBody({ pairs }) }), 'RULE_PAIRS_INVALID', [
        at('/pairs'),
      ]);
      expect(await snapshot(t)).toStrictEqual(before);
    });

    it('POST with one bad pair among good ones names the pair and the field', async () => {
      const bad = { ...redirectPair(), source: { key: 'Url', operator: 'StartsWith', value: 'x' } };
      const before = await snapshot(t);
      const reply = await t.call('POST', '/v1/rules', {
        body: validBody({ pairs: [redirectPair(), redirectPair(), bad] }),
      });
      expectError(reply, 'RULE_PAIRS_INVALID', [at('/pairs/2/source/operator')]);
      expect(await snapshot(t)).toStrictEqual(before);
    });

    it('POST with an unknown field inside a pair, and a pair that is not an object', async () => {
      const reply = await t.call('POST', '/v1/rules', {
        body: validBody({ pairs: [{ ...redirectPair(), extra: 1 }, 'pair'] }),
      });
      expectError(reply, 'RULE_PAIRS_INVALID', [at('/pairs/0/extra'), at('/pairs/1')]);
    });

    it('POST with a pair of another rule type', async () => {
      const reply = await t.call('POST', '/v1/rules', { body: validBody({ ruleType: 'Delay' }) });
      expect(reply.body.code).toBe('RULE_PAIRS_INVALID');
      expect(detailPaths(reply)).toEqual([
        '/pairs/0/delay',
        '/pairs/0/destination',
        '/pairs/0/destinationType',
      ]);
    });

    it('POST with a pair id of 33 characters', async () => {
      const reply = await t.call('POST', '/v1/rules', {
        body: validBody({ pairs: [{ id: 'a'.repeat(33), ...redirectPair() }] }),
      });
      expectError(reply, 'RULE_PAIRS_INVALID', [at('/pairs/0/id')]);
    });

    it('POST with two pairs of the same id', async () => {
      const reply = await t.call('POST', '/v1/rules', {
        body: validBody({
          pairs: [
            { id: 'same', ...redirectPair() },
            { id: 'same', ...redirectPair() },
          ],
        }),
      });
      expectError(reply, 'RULE_PAIRS_INVALID', [at('/pairs/1/id')]);
    });

    it.each([
      ['no pairs', [], '/pairs'],
      ['101 pairs', Array.from({ length: 101 }, () => cancelPair()), '/pairs'],
      [
        'a bad pair',
        [cancelPair(), { source: { key: 'domain', operator: 'Equals', value: 'x' } }],
        '/pairs/1/source/key',
      ],
    ])('PUT with %s is refused and changes nothing', async (_title, pairs, path) => {
      const rule = await createRule(t);
      expectError(await t.call('PUT', `/v1/rules/${rule.id}`, { body: { pairs } }), 'RULE_PAIRS_INVALID', [
        at(path),
      ]);
      expect(await getRule(t, rule.id)).toStrictEqual(rule);
    });
  });

  describe('Rule not found', () => {
    it.each([
      'Cancel_zzzzz',
      'Redirect_00000',
      'Cancel_ZZZZZ',
      'nonsense',
      'Group_abcde',
      '12345',
      `Redirect_${'a'.repeat(40)}`,
      'has%20space',
      '%E2%9C%93',
      'a%2Fb',
      'Cancel_zzzzz.json',
    ])('the rule id %s is Rule not found on GET, PUT and DELETE', async (id) => {
      expectError(await t.call('GET', `/v1/rules/${id}`), 'RULE_NOT_FOUND');
      expectError(await t.call('PUT', `/v1/rules/${id}`, { body: { name: 'x' } }), 'RULE_NOT_FOUND');
      expectError(await t.call('DELETE', `/v1/rules/${id}`), 'RULE_NOT_FOUND');
    });

    it('ids are matched exactly: another letter case of an existing id is not found', async () => {
      const rule = await createRule(t);
      const upper = `Cancel_${String(rule.id).slice('Cancel_'.length).toUpperCase()}`;
      const lower = String(rule.id).toLowerCase();
      expectError(await t.call('GET', `/v1/rules/${lower}`), 'RULE_NOT_FOUND');
      if (upper !== rule.id) expectError(await t.call('GET', `/v1/rules/${upper}`), 'RULE_NOT_FOUND');
      expect(await getRule(t, rule.id)).toStrictEqual(rule);
    });

    it('a rule id longer than any URL parameter limit is still Rule not found', async () => {
      const id = `Redirect_${'a'.repeat(3000)}`;
      expectError(await t.call('GET', `/v1/rules/${id}`), 'RULE_NOT_FOUND');
      expectError(await t.call('DELETE', `/v1/rules/${id}`), 'RULE_NOT_FOUND');
    });

    it('a rule id with a broken percent-encoding is still Rule not found', async () => {
      expectError(await t.call('GET', '/v1/rules/%zz'), 'RULE_NOT_FOUND');
    });

    it('PUT on a missing rule is Rule not found whatever the body', async () => {
      expectError(await t.call('PUT', '/v1/rules/Cancel_zzzzz', rawJson('{')), 'RULE_NOT_FOUND');
      expectError(
        await t.call('PUT', '/v1/rules/Cancel_zzzzz', { body: { ruleType: 'Delay' } }),
        'RULE_NOT_FOUND',
      );
    });
  });

  describe('groupId references', () => {
    it.each(['Group_zzzzz', 'Group_missing', 'no-such-group', 'Group_!!'])(
      'POST with the groupId %s of no group is Group not found, creating nothing',
      async (groupId) => {
        const before = await snapshot(t);
        const reply = await t.call('POST', '/v1/rules', { body: validBody({ groupId }) });
        expectError(reply, 'GROUP_NOT_FOUND', maybe(at('/groupId')));
        expect(await snapshot(t)).toStrictEqual(before);
      },
    );

    it('PUT with the groupId of no group is Group not found, changing nothing', async () => {
      const group = await createGroup(t);
      const rule = await createRule(t, { groupId: group.id });
      const reply = await t.call('PUT', `/v1/rules/${rule.id}`, {
        body: { groupId: 'Group_zzzzz', name: 'x' },
      });
      expectError(reply, 'GROUP_NOT_FOUND', maybe(at('/groupId')));
      expect(await getRule(t, rule.id)).toStrictEqual(rule);
    });

    it('a deleted group cannot be referenced any more', async () => {
      const group = await createGroup(t);
      expect((await t.call('DELETE', `/v1/groups/${group.id}`)).status).toBe(200);
      const reply = await t.call('POST', '/v1/rules', { body: validBody({ groupId: group.id }) });
      expectError(reply, 'GROUP_NOT_FOUND', maybe(at('/groupId')));
    });

    it("POST and PUT with another workspace's groupId are Unauthorized action, changing nothing", async () => {
      const foreign = await createGroup(t, {}, t.outsider.key);
      const before = await snapshot(t);
      expectError(
        await t.call('POST', '/v1/rules', { body: validBody({ groupId: foreign.id }) }),
        'UNAUTHORIZED_ACTION',
        maybe(at('/groupId')),
      );
      expect(await snapshot(t)).toStrictEqual(before);

      const rule = await createRule(t);
      expectError(
        await t.call('PUT', `/v1/rules/${rule.id}`, { body: { groupId: foreign.id } }),
        'UNAUTHORIZED_ACTION',
        maybe(at('/groupId')),
      );
      expect(await getRule(t, rule.id)).toStrictEqual(rule);
      const outsiderGroups = await t.call('GET', '/v1/groups', { key: t.outsider.key });
      expect(outsiderGroups.body.data).toEqual([expect.objectContaining({ id: foreign.id, ruleCount: 0 })]);
    });
  });

  describe('order of checks', () => {
    it("an invalid body on another workspace's rule is Unauthorized action", async () => {
      const rule = await createRule(t);
      for (const options of [
        rawJson('{not json'),
        { body: { name: '' } },
        { body: { pairs: [] } },
        { body: { ruleType: 'Delay' } },
        { body: { groupId: 'Group_zzzzz' } },
      ]) {
        const reply = await t.call('PUT', `/v1/rules/${rule.id}`, { ...options, key: t.outsider.key });
        expectError(reply, 'UNAUTHORIZED_ACTION');
      }
      expect(await getRule(t, rule.id)).toStrictEqual(rule);
    });

    it('a changed ruleType comes before any other problem of the body', async () => {
      const rule = await createRule(t);
      for (const body of [
        { ruleType: 'Redirect', name: '' },
        { ruleType: 'Redirect', pairs: [] },
        { ruleType: 'Redirect', colour: 'red' },
        { ruleType: 'Redirect', groupId: 'Group_zzzzz' },
      ]) {
        expectError(await t.call('PUT', `/v1/rules/${rule.id}`, { body }), 'RULE_TYPE_UPDATE_NOT_ALLOWED', [
          at('/ruleType'),
        ]);
      }
      expect(await getRule(t, rule.id)).toStrictEqual(rule);
    });

    it('a body error comes before the groupId reference error, on POST and PUT', async () => {
      const foreign = await createGroup(t, {}, t.outsider.key);
      for (const groupId of ['Group_zzzzz', foreign.id]) {
        expectError(
          await t.call('POST', '/v1/rules', { body: validBody({ groupId, name: '  ' }) }),
          'RULE_PAYLOAD_INVALID',
          [at('/name')],
        );
        expectError(
          await t.call('POST', '/v1/rules', { body: validBody({ groupId, pairs: [] }) }),
          'RULE_PAIRS_INVALID',
          [at('/pairs')],
        );
      }
      const rule = await createRule(t);
      for (const groupId of ['Group_zzzzz', foreign.id]) {
        expectError(
          await t.call('PUT', `/v1/rules/${rule.id}`, { body: { groupId, status: 'on' } }),
          'RULE_PAYLOAD_INVALID',
          [at('/status')],
        );
        expectError(
          await t.call('PUT', `/v1/rules/${rule.id}`, { body: { groupId, pairs: [{}] } }),
          'RULE_PAIRS_INVALID',
          [at('/pairs/0/source')],
        );
      }
      expect(await getRule(t, rule.id)).toStrictEqual(rule);
    });

    it('payload errors name the error, and the pairs errors come in the same answer (decision 7)', async () => {
      const reply = await t.call('POST', '/v1/rules', { body: validBody({ name: '', pairs: [] }) });
      expectError(reply, 'RULE_PAYLOAD_INVALID', [at('/name'), at('/pairs')]);
    });

    it('authentication comes before everything', async () => {
      const rule = await createRule(t);
      expectError(
        await t.call('PUT', `/v1/rules/${rule.id}`, { ...rawJson('{'), key: null }),
        'API_KEY_REQUIRED',
      );
      expectError(await t.call('GET', '/v1/rules/Cancel_zzzzz', { key: null }), 'API_KEY_REQUIRED');
      expectError(await t.call('POST', '/v1/rules', { body: [], key: 'rk_wrong' }), 'API_KEY_INVALID');
      expect(await getRule(t, rule.id)).toStrictEqual(rule);
    });
  });

  it('a series of rejected writes changes nothing at all', async () => {
    const group = await createGroup(t);
    const rule = await createRule(t, { groupId: group.id, status: 'Active' });
    const before = await snapshot(t);
    const attempts = [
      t.call('POST', '/v1/rules', { body: validBody({ pairs: [] }) }),
      t.call('POST', '/v1/rules', { body: validBody({ groupId: 'Group_zzzzz' }) }),
      t.call('POST', '/v1/rules', rawJson('{"name":"x"')),
      t.call('PUT', `/v1/rules/${rule.id}`, { body: { name: 'changed', pairs: [{ source: {} }] } }),
      t.call('PUT', `/v1/rules/${rule.id}`, { body: { status: 'Inactive', groupId: 'Group_zzzzz' } }),
      t.call('PUT', `/v1/rules/${rule.id}`, { body: { status: 'Inactive', ruleType: 'Delay' } }),
      t.call('PUT', `/v1/rules/${rule.id}`, { body: { status: 'Inactive' }, key: t.outsider.key }),
      t.call('DELETE', `/v1/rules/${rule.id}`, { key: t.outsider.key }),
      t.call('DELETE', `/v1/groups/${group.id}`, { key: t.outsider.key }),
    ];
    for (const reply of await Promise.all(attempts)) expect(reply.status).toBeGreaterThanOrEqual(400);
    expect(await snapshot(t)).toStrictEqual(before);
  });
});
