// /v1/groups: create, read, merge-update and delete (which ungroups rules), and every group error.
import { describe, expect, it } from 'vitest';
import {
  at,
  createGroup,
  createRule,
  expectError,
  GROUP_ID,
  getGroup,
  getRule,
  maybe,
  rawJson,
  snapshot,
  uniqueName,
  within,
} from '../helpers/fixtures.js';
import { forEachDatabase, useTestApp } from '../helpers/test-app.js';

forEachDatabase((db) => {
  const t = useTestApp({ db });

  describe('POST /v1/groups', () => {
    it('creates a group with defaults and answers 201 with every field and a Location', async () => {
      const name = uniqueName('checkout mocks');
      const before = Date.now();
      const reply = await t.call('POST', '/v1/groups', { body: { name } });
      const after = Date.now();
      expect(reply.status).toBe(201);
      expect(reply.body).toStrictEqual({
        success: true,
        data: {
          id: expect.stringMatching(GROUP_ID),
          name,
          status: 'Active',
          isFavourite: false,
          objectType: 'group',
          creationDate: within(before, after),
          modificationDate: reply.body.data.creationDate,
          createdBy: t.owner.userId,
          lastModifiedBy: t.owner.userId,
          currentOwnerId: t.owner.userId,
        },
      });
      expect(reply.headers.location).toBe(`/v1/groups/${reply.body.data.id}`);
      expect(reply.headers['x-request-id']).toEqual(expect.any(String));
    });

    it('stores the given status and isFavourite', async () => {
      const name = uniqueName('inactive');
      const created = await createGroup(t, { name, status: 'Inactive', isFavourite: true });
      expect(created).toMatchObject({ name, status: 'Inactive', isFavourite: true });
      expect(await getGroup(t, created.id)).toStrictEqual(created);
    });

    it("gives a teammate's group the teammate as creator and the owner as currentOwnerId", async () => {
      const created = await createGroup(t, {}, t.teammate.key);
      expect(created).toMatchObject({
        createdBy: t.teammate.userId,
        lastModifiedBy: t.teammate.userId,
        currentOwnerId: t.owner.userId,
      });
    });

    it('generates a distinct id for every group', async () => {
      const ids = new Set<unknown>();
      for (let i = 0; i < 5; i++) ids.add((await createGroup(t)).id);
      expect(ids.size).toBe(5);
    });

    it('accepts a name of 256 characters after trimming, and rejects 257', async () => {
      const longest = 'n'.repeat(256);
      const created = await createGroup(t, { name: `  ${longest}  ` });
      expect(created.name).toBe(longest);
      const before = await snapshot(t);
      const reply = await t.call('POST', '/v1/groups', { body: { name: 'n'.repeat(257) } });
      expectError(reply, 'GROUP_PAYLOAD_INVALID', [at('/name')]);
      expect(await snapshot(t)).toStrictEqual(before);
    });

    it('ignores read-only fields sent in the body', async () => {
      const name = uniqueName('sent back');
      const before = Date.now();
      const reply = await t.call('POST', '/v1/groups', {
        body: {
          name,
          id: 'Group_mine1',
          objectType: 'rule',
          creationDate: 1,
          modificationDate: 2,
          createdBy: 'someone',
          lastModifiedBy: 'someone',
          currentOwnerId: 'someone',
        },
      });
      expect(reply.status).toBe(201);
      const data = reply.body.data;
      expect(data.id).not.toBe('Group_mine1');
      expect(data).toStrictEqual({
        id: expect.stringMatching(GROUP_ID),
        name,
        status: 'Active',
        isFavourite: false,
        objectType: 'group',
        creationDate: within(before, Date.now()),
        modificationDate: data.creationDate,
        createdBy: t.owner.userId,
        lastModifiedBy: t.owner.userId,
        currentOwnerId: t.owner.userId,
      });
      expect((await t.call('GET', '/v1/groups/Group_mine1')).status).toBe(404);
    });
  });

  describe('GET /v1/groups/:id', () => {
    it('answers the stored group', async () => {
      const created = await createGroup(t, { status: 'Inactive' });
      const reply = await t.call('GET', `/v1/groups/${created.id}`);
      expect(reply.status).toBe(200);
      expect(reply.body).toStrictEqual({ success: true, data: created });
    });
  });

  describe('PUT /v1/groups/:id', () => {
    it('merges: fields left out keep their values', async () => {
      const created = await createGroup(t, { status: 'Inactive', isFavourite: true });
      const reply = await t.call('PUT', `/v1/groups/${created.id}`, { body: { status: 'Active' } });
      expect(reply.status).toBe(200);
      expect(reply.body).toStrictEqual({
        success: true,
        data: { ...created, status: 'Active', modificationDate: expect.any(Number) },
      });
      expect(reply.body.data.modificationDate).toBeGreaterThan(created.modificationDate as number);
      expect(await getGroup(t, created.id)).toStrictEqual(reply.body.data);

      const renamed = uniqueName('renamed');
      const second = await t.call('PUT', `/v1/groups/${created.id}`, { body: { name: renamed } });
      expect(second.status).toBe(200);
      expect(second.body.data).toStrictEqual({
        ...reply.body.data,
        name: renamed,
        modificationDate: expect.any(Number),
      });
      expect(await getGroup(t, created.id)).toStrictEqual(second.body.data);

      const third = await t.call('PUT', `/v1/groups/${created.id}`, { body: { isFavourite: false } });
      expect(third.status).toBe(200);
      expect(await getGroup(t, created.id)).toStrictEqual({
        ...second.body.data,
        isFavourite: false,
        modificationDate: third.body.data.modificationDate,
      });
    });

    it('moves modificationDate strictly forward, even for quick successive PUTs', async () => {
      const created = await createGroup(t);
      const dates = [created.modificationDate as number];
      for (const status of ['Inactive', 'Active', 'Inactive', 'Active']) {
        const reply = await t.call('PUT', `/v1/groups/${created.id}`, { body: { status } });
        expect(reply.status).toBe(200);
        dates.push(reply.body.data.modificationDate);
      }
      for (let i = 1; i < dates.length; i++) expect(dates[i]).toBeGreaterThan(dates[i - 1] as number);
      const stored = await getGroup(t, created.id);
      expect(stored.modificationDate).toBe(dates.at(-1));
      expect(stored.creationDate).toBe(created.creationDate);
    });

    it('gives concurrent PUTs distinct modificationDates, the stored one the latest', async () => {
      const created = await createGroup(t);
      const replies = await Promise.all(
        ['Inactive', 'Active', 'Inactive'].map((status) =>
          t.call('PUT', `/v1/groups/${created.id}`, { body: { status } }),
        ),
      );
      const dates = replies.map((reply) => {
        expect(reply.status).toBe(200);
        return reply.body.data.modificationDate as number;
      });
      expect(new Set(dates).size).toBe(3);
      for (const date of dates) expect(date).toBeGreaterThan(created.modificationDate as number);
      expect((await getGroup(t, created.id)).modificationDate).toBe(Math.max(...dates));
    });

    it("records the teammate as lastModifiedBy when the teammate edits the owner's group", async () => {
      const created = await createGroup(t);
      const reply = await t.call('PUT', `/v1/groups/${created.id}`, {
        key: t.teammate.key,
        body: { status: 'Inactive' },
      });
      expect(reply.status).toBe(200);
      expect(reply.body.data).toMatchObject({
        createdBy: t.owner.userId,
        lastModifiedBy: t.teammate.userId,
        currentOwnerId: t.owner.userId,
        status: 'Inactive',
      });
      expect(await getGroup(t, created.id)).toStrictEqual(reply.body.data);
    });

    it('ignores read-only fields sent back from a GET', async () => {
      const created = await createGroup(t);
      const listed = (await t.call('GET', '/v1/groups')).body.data.find(
        (g: { id: unknown }) => g.id === created.id,
      );
      expect(listed).toBeDefined();
      const name = uniqueName('round trip');
      const reply = await t.call('PUT', `/v1/groups/${created.id}`, {
        key: t.teammate.key,
        body: {
          ...listed,
          name,
          id: 'Group_other',
          objectType: 'rule',
          creationDate: 1,
          modificationDate: 1,
          createdBy: 'x',
          lastModifiedBy: 'x',
          currentOwnerId: 'x',
        },
      });
      expect(reply.status).toBe(200);
      expect(reply.body.data).toStrictEqual({
        ...created,
        name,
        lastModifiedBy: t.teammate.userId,
        modificationDate: expect.any(Number),
      });
      expect(reply.body.data.modificationDate).toBeGreaterThan(created.modificationDate as number);
      expect(await getGroup(t, created.id)).toStrictEqual(reply.body.data);
    });
  });

  describe('DELETE /v1/groups/:id', () => {
    it('deletes the group and ungroups its rules, which keep existing', async () => {
      const group = await createGroup(t);
      const other = await createGroup(t);
      const inGroup = [
        await createRule(t, { groupId: group.id, status: 'Active' }),
        await createRule(t, { groupId: group.id }),
        await createRule(t, { groupId: group.id }),
      ];
      const inOther = await createRule(t, { groupId: other.id });
      const ungrouped = await createRule(t);

      const reply = await t.call('DELETE', `/v1/groups/${group.id}`);
      expect(reply.status).toBe(200);
      expect(reply.body).toStrictEqual({
        success: true,
        message: 'Group deleted successfully; 3 rules ungrouped',
      });

      expectError(await t.call('GET', `/v1/groups/${group.id}`), 'GROUP_NOT_FOUND');
      for (const rule of inGroup) {
        const stored = await getRule(t, rule.id);
        expect(stored).toStrictEqual({
          ...rule,
          groupId: '',
          modificationDate: expect.any(Number),
          lastModifiedBy: expect.any(String),
        });
        expect(stored.modificationDate).toBeGreaterThan(rule.modificationDate as number);
      }
      expect(await getRule(t, inOther.id)).toStrictEqual(inOther);
      expect(await getRule(t, ungrouped.id)).toStrictEqual(ungrouped);
      expect(await getGroup(t, other.id)).toStrictEqual(other);
    });

    it('deletes an empty group, saying no rule was ungrouped', async () => {
      const group = await createGroup(t);
      const reply = await t.call('DELETE', `/v1/groups/${group.id}`);
      expect(reply.status).toBe(200);
      expect(reply.body).toStrictEqual({
        success: true,
        message: 'Group deleted successfully; 0 rules ungrouped',
      });
      expectError(await t.call('DELETE', `/v1/groups/${group.id}`), 'GROUP_NOT_FOUND');
      expectError(await t.call('PUT', `/v1/groups/${group.id}`, { body: { name: 'x' } }), 'GROUP_NOT_FOUND');
    });

    it('lets a teammate delete the group', async () => {
      const group = await createGroup(t);
      const rule = await createRule(t, { groupId: group.id });
      const reply = await t.call('DELETE', `/v1/groups/${group.id}`, { key: t.teammate.key });
      expect(reply.status).toBe(200);
      expect(reply.body.message).toMatch(/^Group deleted successfully; 1 rules? ungrouped$/);
      expect((await getRule(t, rule.id)).groupId).toBe('');
    });
  });

  describe('errors', () => {
    it.each([
      ['an array', '[{"name":"x"}]'],
      ['a string', '"x"'],
      ['a number', '42'],
      ['null', 'null'],
      ['true', 'true'],
      ['malformed JSON', '{"name": "x"'],
      ['a trailing comma', '{"name": "x",}'],
      ['an empty body', ''],
    ])('POST with %s as body is Invalid Group Payload at the root', async (_title, text) => {
      const before = await snapshot(t);
      const reply = await t.call('POST', '/v1/groups', rawJson(text));
      expectError(reply, 'GROUP_PAYLOAD_INVALID', [at('')]);
      expect(await snapshot(t)).toStrictEqual(before);
    });

    it.each([
      ['an unknown field', { name: 'x', colour: 'red' }, ['/colour']],
      ['a rules field', { name: 'x', rules: [] }, ['/rules']],
      ['a name that is not a string', { name: 42 }, ['/name']],
      ['a name that is an object', { name: { first: 'x' } }, ['/name']],
      ['a status not allowed', { name: 'x', status: 'active' }, ['/status']],
      ['a status that is not a string', { name: 'x', status: true }, ['/status']],
      ['isFavourite not a boolean', { name: 'x', isFavourite: 'yes' }, ['/isFavourite']],
      ['two bad fields', { name: 'x', status: 'On', isFavourite: 1 }, ['/isFavourite', '/status']],
    ])('POST with %s is Invalid Group Payload naming the field', async (_title, body, paths) => {
      const before = await snapshot(t);
      const reply = await t.call('POST', '/v1/groups', { body });
      expectError(
        reply,
        'GROUP_PAYLOAD_INVALID',
        paths.map((path) => at(path)),
      );
      expect(await snapshot(t)).toStrictEqual(before);
    });

    it.each([
      ['no name', {}],
      ['only a status', { status: 'Active' }],
      ['an empty name', { name: '' }],
      ['a blank name', { name: '   \t ' }],
    ])('POST with %s is Group Name Required', async (_title, body) => {
      const before = await snapshot(t);
      expectError(await t.call('POST', '/v1/groups', { body }), 'GROUP_NAME_REQUIRED', [at('/name')]);
      expect(await snapshot(t)).toStrictEqual(before);
    });

    it.each([
      ['an empty name', ''],
      ['a blank name', '    '],
    ])('PUT with %s is Group Name Required and changes nothing', async (_title, name) => {
      const group = await createGroup(t);
      const reply = await t.call('PUT', `/v1/groups/${group.id}`, { body: { name, status: 'Inactive' } });
      expectError(reply, 'GROUP_NAME_REQUIRED', [at('/name')]);
      expect(await getGroup(t, group.id)).toStrictEqual(group);
    });

    it.each([
      ['an unknown field', { colour: 'red' }, '/colour'],
      ['a wrong status', { status: 'Paused' }, '/status'],
      ['a name that is not a string', { name: ['x'] }, '/name'],
      ['a name too long', { name: 'x'.repeat(257) }, '/name'],
    ])('PUT with %s is Invalid Group Payload and changes nothing', async (_title, body, path) => {
      const group = await createGroup(t);
      expectError(await t.call('PUT', `/v1/groups/${group.id}`, { body }), 'GROUP_PAYLOAD_INVALID', [
        at(path),
      ]);
      expect(await getGroup(t, group.id)).toStrictEqual(group);
    });

    it.each([
      ['an array', '[]'],
      ['malformed JSON', '{"status":'],
      ['null', 'null'],
    ])('PUT with %s as body is Invalid Group Payload and changes nothing', async (_title, text) => {
      const group = await createGroup(t);
      const reply = await t.call('PUT', `/v1/groups/${group.id}`, rawJson(text));
      expectError(reply, 'GROUP_PAYLOAD_INVALID', [at('')]);
      expect(await getGroup(t, group.id)).toStrictEqual(group);
    });

    const malformedIds = [
      'abc',
      'Group_',
      'group_abcde',
      'GROUP_abcde',
      'Group_ab-cd',
      'Group_ab.cd',
      'Group_ab%20cd',
      `Group_${'a'.repeat(33)}`,
      'Redirect_abcde',
      '12345',
      'Group_%C3%A9t%C3%A9',
    ];
    it.each(malformedIds)(
      'the malformed group id %s is Invalid Group Id on GET, PUT and DELETE',
      async (id) => {
        expectError(await t.call('GET', `/v1/groups/${id}`), 'INVALID_GROUP_ID', maybe(at('/id')));
        expectError(
          await t.call('PUT', `/v1/groups/${id}`, { body: { name: 'x' } }),
          'INVALID_GROUP_ID',
          maybe(at('/id')),
        );
        expectError(await t.call('DELETE', `/v1/groups/${id}`), 'INVALID_GROUP_ID', maybe(at('/id')));
      },
    );

    it('a malformed group id is reported before the body is looked at', async () => {
      expectError(
        await t.call('PUT', '/v1/groups/nope', rawJson('{oops')),
        'INVALID_GROUP_ID',
        maybe(at('/id')),
      );
    });

    it('a group id longer than any URL parameter limit is still Invalid Group Id', async () => {
      const id = `Group_${'a'.repeat(3000)}`;
      expectError(await t.call('GET', `/v1/groups/${id}`), 'INVALID_GROUP_ID', maybe(at('/id')));
      expectError(await t.call('DELETE', `/v1/groups/${id}`), 'INVALID_GROUP_ID', maybe(at('/id')));
    });

    it.each(['Group_zzzzz', 'Group_0', `Group_${'Z'.repeat(32)}`])(
      'the well-formed id %s of no group is Group not found on GET, PUT and DELETE',
      async (id) => {
        expectError(await t.call('GET', `/v1/groups/${id}`), 'GROUP_NOT_FOUND');
        expectError(await t.call('PUT', `/v1/groups/${id}`, { body: { name: 'x' } }), 'GROUP_NOT_FOUND');
        expectError(await t.call('DELETE', `/v1/groups/${id}`), 'GROUP_NOT_FOUND');
      },
    );

    it('a missing group is reported before its body is looked at', async () => {
      expectError(await t.call('PUT', '/v1/groups/Group_zzzzz', rawJson('[1')), 'GROUP_NOT_FOUND');
      expectError(await t.call('PUT', '/v1/groups/Group_zzzzz', { body: { name: '' } }), 'GROUP_NOT_FOUND');
    });

    it('group ids in paths are matched exactly, not by letter case', async () => {
      const group = await createGroup(t);
      const upper = `Group_${String(group.id).slice('Group_'.length).toUpperCase()}`;
      if (upper !== group.id) {
        expectError(await t.call('GET', `/v1/groups/${upper}`), 'GROUP_NOT_FOUND');
      }
      expect(await getGroup(t, group.id)).toStrictEqual(group);
    });
  });
});
