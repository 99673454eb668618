// Real Requestly records go in as they are (decision 7), and every error points into the body as sent.
import { describe, expect, it } from 'vitest';
import { at, expectError } from '../helpers/fixtures.js';
import { requestlyGroup, requestlyRules } from '../helpers/requestly-records.js';
import { useTestApp } from '../helpers/test-app.js';

type Json = Record<string, any>;

const src = (value: string, extra: Json = {}) => ({ key: 'Url', operator: 'Contains', value, ...extra });

/** What each record's pairs become: the canonical shape of decision 6. */
const canonicalPairs: Record<string, Json[]> = {
  'Redirect pair without destinationType, filters [null]': [
    {
      id: 'ad7ai',
      source: src('example.com/api'),
      destination: 'https://staging.example.com/api',
      destinationType: 'url',
    },
  ],
  'Response with nested response, statusCode "" and isCompressed': [
    {
      id: 'v4f2k',
      source: src('/api/user'),
      type: 'static',
      value: '{"name":"Ada"}',
      resourceType: 'restApi',
      serveWithoutRequest: false,
      isCompressed: false,
    },
  ],
  'Request with nested request and isCompressed': [
    {
      id: 'r5t6y',
      source: src('/graphql'),
      type: 'static',
      value: '{}',
      resourceType: 'graphqlApi',
      isCompressed: false,
    },
  ],
  'Replace pair with a status': [{ id: 'z8x7c', source: src('example.com'), from: 'prod', to: 'staging' }],
  'Headers with ids on modifications, one-object modifications': [
    {
      id: 'h0d3r',
      source: src('example.com'),
      modifications: [
        {
          Request: [{ header: 'X-Debug', id: 'qw3rt', type: 'Add', value: '1' }],
          Response: [{ header: 'Access-Control-Allow-Origin', id: 'as4df', type: 'Add', value: '*' }],
        },
      ],
    },
  ],
  'QueryParam with ids on modifications': [
    {
      id: 'qp1a2',
      source: src('example.com'),
      modifications: [
        { actionWhenParamExists: 'Overwrite', id: 'zx9cv', param: 'debug', type: 'Add', value: '1' },
      ],
    },
  ],
  'Script with libraries': [
    {
      id: 's9d8f',
      source: src('example.com'),
      libraries: [],
      scripts: [
        { codeType: 'js', fileName: '', loadTime: 'afterPageLoad', type: 'code', value: 'console.log(1)' },
      ],
    },
  ],
  'Delay as a string, key in upper case': [{ id: 'd1l2y', source: src('slow'), delay: 1500 }],
  'Cancel with pageUrl filter': [
    {
      id: 'c4n5c',
      source: {
        key: 'host',
        operator: 'Equals',
        value: 'ads.example.com',
        filters: [{ URL: { operator: 'Contains', value: 'news' }, requestMethod: ['GET'] }],
      },
    },
  ],
  'UserAgent with env': [
    {
      id: 'u1a2g',
      source: src('example.com'),
      env: 'iPhone',
      envType: 'device',
      userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X)',
    },
  ],
};

describe('real Requestly records', () => {
  const t = useTestApp();

  it('a Requestly group record is taken as it is (description, children, currentOwner ignored)', async () => {
    const reply = await t.call('POST', '/v1/groups', { body: requestlyGroup });
    expect(reply.status).toBe(201);
    expect(reply.body.data).toMatchObject({ name: 'Staging', status: 'Active', isFavourite: false });
  });

  it.each(Object.keys(requestlyRules))('takes %s as it is, and stores it canonical', async (title) => {
    const record = { ...(requestlyRules[title] as Json), groupId: '' };
    const reply = await t.call('POST', '/v1/rules', { body: record });
    expect(reply.status, JSON.stringify(reply.body)).toBe(201);
    expect(reply.body.data.pairs).toStrictEqual(canonicalPairs[title]);
    const read = await t.call('GET', `/v1/rules/${reply.body.data.id}`);
    expect(read.body.data.pairs).toStrictEqual(canonicalPairs[title]);
  });
});

/** Each input variant of decision 7, sent with a mistake inside it, and where the error must point. */
const pointerCases: { title: string; ruleType: string; pair: Json; path: string }[] = [
  {
    title: 'source key in another letter case',
    ruleType: 'Cancel',
    pair: { source: { key: 'HOST', operator: 'Is', value: 'a' } },
    path: '/pairs/0/source/operator',
  },
  {
    title: 'delay as a string that is not digits',
    ruleType: 'Delay',
    pair: { source: src('a'), delay: '9s' },
    path: '/pairs/0/delay',
  },
  {
    title: 'nested response.statusCode',
    ruleType: 'Response',
    pair: { source: src('a'), response: { type: 'static', value: '', statusCode: 'Not Found' } },
    path: '/pairs/0/response/statusCode',
  },
  {
    title: 'nested response.statusCode as digits out of range',
    ruleType: 'Response',
    pair: { source: src('a'), response: { type: 'static', value: '', statusCode: '700' } },
    path: '/pairs/0/response/statusCode',
  },
  {
    title: 'nested response.type with an empty statusCode beside it',
    ruleType: 'Response',
    pair: { source: src('a'), response: { type: 'json', value: '', statusCode: '' } },
    path: '/pairs/0/response/type',
  },
  {
    title: 'nested response.isCompressed',
    ruleType: 'Response',
    pair: { source: src('a'), response: { type: 'static', value: '', isCompressed: 'yes' } },
    path: '/pairs/0/response/isCompressed',
  },
  {
    title: 'nested request.statusCode',
    ruleType: 'Request',
    pair: { source: src('a'), request: { type: 'static', value: '', statusCode: '99' } },
    path: '/pairs/0/request/statusCode',
  },
  {
    title: 'filters: null beside a mistake in the source',
    ruleType: 'Cancel',
    pair: { source: src('a', { filters: null, operator: 'Is' }) },
    path: '/pairs/0/source/operator',
  },
  {
    title: 'nested request.resourceType',
    ruleType: 'Request',
    pair: { source: src('a'), request: { type: 'static', value: '', resourceType: 'soap' } },
    path: '/pairs/0/request/resourceType',
  },
  {
    title: 'one-object modifications, a modification id',
    ruleType: 'Headers',
    pair: { source: src('a'), modifications: { Request: [{ id: 'not-ok', header: 'X', type: 'Remove' }] } },
    path: '/pairs/0/modifications/Request/0/id',
  },
  {
    title: 'one-object modifications, a value missing (found by the type check)',
    ruleType: 'Headers',
    pair: { source: src('a'), modifications: { Response: [{ header: 'X', type: 'Add' }] } },
    path: '/pairs/0/modifications/Response/0/value',
  },
  {
    title: 'a header modification id in the array form',
    ruleType: 'Headers',
    pair: { source: src('a'), modifications: [{ Request: [{ id: '', header: 'X', type: 'Remove' }] }] },
    path: '/pairs/0/modifications/0/Request/0/id',
  },
  {
    title: 'a query-parameter modification id',
    ruleType: 'QueryParam',
    pair: { source: src('a'), modifications: [{ id: 'x'.repeat(33), type: 'Remove All' }] },
    path: '/pairs/0/modifications/0/id',
  },
  {
    title: 'filters as one object',
    ruleType: 'Cancel',
    pair: { source: src('a', { filters: { requestMethod: ['FETCH'] } }) },
    path: '/pairs/0/source/filters/requestMethod/0',
  },
  {
    title: 'filters after dropped empty objects',
    ruleType: 'Cancel',
    pair: { source: src('a', { filters: [{}, {}, { resourceType: ['document'] }] }) },
    path: '/pairs/0/source/filters/2/resourceType/0',
  },
  {
    title: 'filters after dropped nulls',
    ruleType: 'Cancel',
    pair: { source: src('a', { filters: [null, { requestMethod: ['FETCH'] }] }) },
    path: '/pairs/0/source/filters/1/requestMethod/0',
  },
  {
    title: 'a pageUrl after a dropped filter',
    ruleType: 'Cancel',
    pair: { source: src('a', { filters: [null, {}, { pageUrl: { operator: 'Is', value: 'x' } }] }) },
    path: '/pairs/0/source/filters/2/pageUrl/operator',
  },
  {
    title: 'a pageUrl pattern that does not compile (found by the type check)',
    ruleType: 'Cancel',
    pair: { source: src('a', { filters: [{}, { pageUrl: { operator: 'Matches', value: '/(/' } }] }) },
    path: '/pairs/0/source/filters/1/pageUrl/value',
  },
  {
    title: 'a source requestType beside a mistake',
    ruleType: 'Cancel',
    pair: { source: src('a', { requestType: 'xmlhttprequest', extra: 1 }) },
    path: '/pairs/0/source/extra',
  },
  {
    title: 'Redirect without destinationType',
    ruleType: 'Redirect',
    pair: { source: src('a'), destination: '' },
    path: '/pairs/0/destination',
  },
  {
    title: 'Replace with a status',
    ruleType: 'Replace',
    pair: { source: src('a'), status: 'Active', from: '', to: 'b' },
    path: '/pairs/0/from',
  },
  {
    title: 'Script libraries',
    ruleType: 'Script',
    pair: {
      source: src('a'),
      libraries: [''],
      scripts: [{ type: 'code', codeType: 'js', loadTime: 'afterPageLoad', value: '' }],
    },
    path: '/pairs/0/libraries/0',
  },
];

describe('error pointers into the body as sent', () => {
  const t = useTestApp();

  it.each(pointerCases)('$title: $path', async ({ ruleType, pair, path }) => {
    const body = { name: 'r', ruleType, pairs: [{ source: src('ok'), ...validRest(ruleType) }, pair] };
    const reply = await t.call('POST', '/v1/rules', { body });
    // The second pair: its index stays the index as sent.
    expectError(reply, 'RULE_PAIRS_INVALID', [at(path.replace('/pairs/0/', '/pairs/1/'))]);
  });

  it.each(pointerCases)('through an import too, at its record: $title', async ({ ruleType, pair, path }) => {
    const group = { objectType: 'group', id: 'Group_g1', name: 'g', description: 'd', children: [] };
    const record = { objectType: 'rule', name: 'r', ruleType, lastModified: 1, pairs: [pair] };
    const reply = await t.call('POST', '/v1/import', { body: [group, record] });
    expectError(reply, 'IMPORT_INVALID', [at(`/1${path}`)]);
  });

  it('reports top-level and pair problems in one answer, named by the top-level error', async () => {
    const body = {
      name: ' ',
      ruleType: 'Response',
      status: 'On',
      unknown: 1,
      pairs: [{ source: src('a'), response: { type: 'json', value: '', statusCode: 'x' } }],
    };
    const reply = await t.call('POST', '/v1/rules', { body });
    expectError(reply, 'RULE_PAYLOAD_INVALID', [
      at('/name'),
      at('/status'),
      at('/unknown'),
      at('/pairs/0/response/statusCode'),
      at('/pairs/0/response/type'),
    ]);
    expect((await t.call('GET', '/v1/rules')).body.total).toBe(0);
  });

  it('reports top-level and pair problems of an update together too', async () => {
    const created = await t.call('POST', '/v1/rules', {
      body: { name: 'd', ruleType: 'Delay', pairs: [{ source: src('a'), delay: 1 }] },
    });
    const reply = await t.call('PUT', `/v1/rules/${created.body.data.id}`, {
      body: { description: 7, pairs: [{ source: src('a'), delay: 'soon' }] },
    });
    expectError(reply, 'RULE_PAYLOAD_INVALID', [at('/description'), at('/pairs/0/delay')]);
  });
});

/** The fields a valid pair of each type needs besides its source. */
function validRest(ruleType: string): Json {
  const rest: Record<string, Json> = {
    Cancel: {},
    Delay: { delay: 1 },
    Response: { type: 'static', value: '' },
    Request: { type: 'static', value: '' },
    Headers: { modifications: [{ Request: [{ header: 'X', type: 'Remove' }] }] },
    QueryParam: { modifications: [{ type: 'Remove All' }] },
    Redirect: { destinationType: 'url', destination: 'https://b.example' },
    Replace: { from: 'a', to: 'b' },
    Script: { scripts: [{ type: 'code', codeType: 'js', loadTime: 'afterPageLoad', value: '' }] },
  };
  return rest[ruleType] as Json;
}
