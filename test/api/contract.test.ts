// The contract check itself: every response the api tests get is held to the OpenAPI document
// (test/helpers/contract.ts); here, that the check refuses what the document does not allow.
import { beforeAll, describe, expect, it } from 'vitest';
import { type Answer, type Contract, contractOf } from '../helpers/contract.js';
import { createRule, redirectPair } from '../helpers/fixtures.js';
import { useTestApp } from '../helpers/test-app.js';

describe('every response is checked against the OpenAPI document', () => {
  const t = useTestApp();
  let contract: Contract;
  beforeAll(async () => {
    contract = await contractOf(t.app);
  });

  /** A real answer of the service, as the checks read it. */
  async function answer(method: 'GET' | 'POST', url: string, payload?: unknown): Promise<Answer> {
    const headers = { 'x-api-key': t.owner.key };
    return t.app.inject({ method, url, headers, ...(payload ? { payload: payload as object } : {}) });
  }

  it('refuses a Delay rule with Redirect pairs: the rule is a union discriminated by ruleType', async () => {
    const rule = await createRule(t, {
      ruleType: 'Delay',
      pairs: [{ source: { key: 'host', operator: 'Equals', value: 'a.example' }, delay: 5 }],
    });
    const real = await answer('GET', `/v1/rules/${rule.id}`);
    expect(() => contract.check('GET', `/v1/rules/${rule.id}`, real)).not.toThrow();
    const body = JSON.parse(real.body);
    body.data.pairs = [{ id: 'p1', ...redirectPair() }];
    const tampered = { ...real, body: JSON.stringify(body) };
    expect(() => contract.check('GET', `/v1/rules/${rule.id}`, tampered)).toThrow(/does not allow/);
  });

  it('refuses a status the operation does not document', async () => {
    const real = await answer('GET', '/v1/rules');
    expect(() => contract.check('GET', '/v1/rules', { ...real, statusCode: 418 })).toThrow(
      /a status the document does not list/,
    );
  });

  it('refuses an error body whose code belongs to another status or operation', async () => {
    const real = await answer('GET', '/v1/rules/Redirect_nope0');
    expect(real.statusCode).toBe(404);
    expect(() => contract.check('GET', '/v1/rules/Redirect_nope0', real)).not.toThrow();
    const wrong = { ...JSON.parse(real.body), code: 'GROUP_NOT_FOUND', message: 'Group not found' };
    expect(() =>
      contract.check('GET', '/v1/rules/Redirect_nope0', { ...real, body: JSON.stringify(wrong) }),
    ).toThrow(/does not allow/);
  });

  it('refuses a 201 without its Location header', async () => {
    const real = await answer('POST', '/v1/groups', { name: 'located' });
    expect(real.statusCode).toBe(201);
    const { location: _dropped, ...headers } = real.headers;
    expect(() => contract.check('POST', '/v1/groups', { ...real, headers })).toThrow(
      /without the documented header Location/,
    );
  });
});
