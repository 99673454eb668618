// Every rule type through the API, driven by the examples of the rule-type registry: valid pairs go
// through the whole life of a rule, invalid ones are refused at their path, variants are stored canonical.
import { beforeAll, describe, expect, it } from 'vitest';
import { RULE_TYPES, ruleTypes } from '../../src/model/rule-types/index.js';
import {
  at,
  expectError,
  GENERATED_SUFFIX,
  getRule,
  type Json,
  ruleIdOf,
  uniqueName,
} from '../helpers/fixtures.js';
import { forEachDatabase, useTestApp } from '../helpers/test-app.js';

/** What a stored pair must be: the input, with the id it was sent with or a generated one. */
function storedForm(pair: Json): Json {
  return { ...pair, id: pair.id ?? expect.stringMatching(GENERATED_SUFFIX) };
}

forEachDatabase((db) => {
  const t = useTestApp({ db });

  async function ruleCount(): Promise<number> {
    const reply = await t.call('GET', '/v1/rules?pageSize=1');
    expect(reply.status).toBe(200);
    return reply.body.total;
  }

  describe.each(RULE_TYPES)('%s', (ruleType) => {
    const { examples } = ruleTypes[ruleType];
    // A rule of this type that invalid updates are tried on; it must never change.
    let target: Json;
    beforeAll(async () => {
      const reply = await t.call('POST', '/v1/rules', {
        body: { name: uniqueName(`${ruleType} target`), ruleType, pairs: [examples.valid[0]?.pair] },
      });
      expect(reply.status).toBe(201);
      target = reply.body.data;
    });

    it('has examples to run', () => {
      expect(examples.valid.length).toBeGreaterThan(0);
      expect(examples.invalid.length).toBeGreaterThan(0);
      expect(examples.variants.length).toBeGreaterThan(0);
    });

    it.each(examples.valid)(
      'creates, reads, updates and deletes a rule with a pair "$title"',
      async ({ pair }) => {
        const name = uniqueName(ruleType);
        const created = await t.call('POST', '/v1/rules', { body: { name, ruleType, pairs: [pair] } });
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        const rule = created.body.data;
        expect(rule).toStrictEqual({
          id: expect.stringMatching(ruleIdOf(ruleType)),
          name,
          description: '',
          status: 'Inactive',
          isFavourite: false,
          ruleType,
          groupId: '',
          pairs: [storedForm(pair)],
          // A Script rule's own: Requestly's default.
          ...(ruleType === 'Script' ? { removeCSPHeader: true } : {}),
          createdBy: t.owner.userId,
          creationDate: expect.any(Number),
          lastModifiedBy: t.owner.userId,
          modificationDate: rule.creationDate,
          currentOwner: t.owner.userId,
          objectType: 'rule',
        });
        expect(created.headers.location).toBe(`/v1/rules/${rule.id}`);
        expect(await getRule(t, rule.id)).toStrictEqual(rule);

        // Every valid example of the type at once, in reverse order: the pairs are replaced wholesale.
        const replacement = examples.valid.map((example) => example.pair).reverse();
        const activated = await t.call('PUT', `/v1/rules/${rule.id}`, {
          body: { status: 'Active', pairs: replacement },
        });
        expect(activated.status, JSON.stringify(activated.body)).toBe(200);
        expect(activated.body.data).toStrictEqual({
          ...rule,
          status: 'Active',
          pairs: replacement.map(storedForm),
          modificationDate: expect.any(Number),
        });
        expect(activated.body.data.modificationDate).toBeGreaterThan(rule.modificationDate);
        expect(await getRule(t, rule.id)).toStrictEqual(activated.body.data);

        const deactivated = await t.call('PUT', `/v1/rules/${rule.id}`, { body: { status: 'Inactive' } });
        expect(deactivated.status).toBe(200);
        expect(deactivated.body.data).toStrictEqual({
          ...activated.body.data,
          status: 'Inactive',
          modificationDate: expect.any(Number),
        });
        expect(await getRule(t, rule.id)).toStrictEqual(deactivated.body.data);

        const deleted = await t.call('DELETE', `/v1/rules/${rule.id}`);
        expect(deleted.status).toBe(200);
        expect(deleted.body).toStrictEqual({ success: true, message: 'Rule deleted successfully' });
        expectError(await t.call('GET', `/v1/rules/${rule.id}`), 'RULE_NOT_FOUND');
      },
    );

    it.each(examples.invalid)('refuses a pair with $title at /pairs/0$path', async ({ pair, path }) => {
      const before = await ruleCount();
      const created = await t.call('POST', '/v1/rules', {
        body: { name: uniqueName(ruleType), ruleType, pairs: [pair] },
      });
      expectError(created, 'RULE_PAIRS_INVALID', [at(`/pairs/0${path}`)]);
      expect(await ruleCount()).toBe(before);

      const updated = await t.call('PUT', `/v1/rules/${target.id}`, {
        body: { status: 'Active', pairs: [pair] },
      });
      expectError(updated, 'RULE_PAIRS_INVALID', [at(`/pairs/0${path}`)]);
      expect(await getRule(t, target.id)).toStrictEqual(target);
    });

    it.each(examples.invalid)(
      'names the pair by its index: $title at /pairs/1$path',
      async ({ pair, path }) => {
        const good = examples.valid[0]?.pair as Json;
        const { id: _id, ...goodWithoutId } = good;
        const reply = await t.call('POST', '/v1/rules', {
          body: { name: uniqueName(ruleType), ruleType, pairs: [goodWithoutId, pair] },
        });
        expectError(reply, 'RULE_PAIRS_INVALID', [at(`/pairs/1${path}`)]);
      },
    );

    it.each(examples.variants)(
      'stores the variant "$title" in canonical form',
      async ({ input, canonical }) => {
        const created = await t.call('POST', '/v1/rules', {
          body: { name: uniqueName(ruleType), ruleType, pairs: [input] },
        });
        expect(created.status, JSON.stringify(created.body)).toBe(201);
        expect(created.body.data.pairs).toStrictEqual([storedForm(canonical)]);
        const stored = await getRule(t, created.body.data.id);
        expect(stored).toStrictEqual(created.body.data);

        // The same variant in an update is stored canonical too.
        const updated = await t.call('PUT', `/v1/rules/${stored.id}`, { body: { pairs: [input] } });
        expect(updated.status).toBe(200);
        expect(updated.body.data.pairs).toStrictEqual([storedForm(canonical)]);
        expect((await getRule(t, stored.id)).pairs).toStrictEqual([storedForm(canonical)]);
      },
    );
  });
});
