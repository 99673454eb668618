// The cases of openapi-exact-requests.test.ts: one request per constraint of the document, valid by the
// document exactly when the service takes it (`refused`: the error it answers instead).
import type { ErrorName } from '../helpers/fixtures.js';

export const delayRule = (delay: number) => ({
  name: 'slow',
  ruleType: 'Delay',
  pairs: [{ source: { key: 'host', operator: 'Equals', value: 'a.example' }, delay }],
});

export type Case = {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  template: string;
  url: () => string;
  body?: unknown;
  /** The error the service answers; undefined: accepted (2xx). */
  refused?: ErrorName;
};

/** The cases, on the group and rule of `ids` (set before the tests run). */
export function exactCases(ids: { group: string; rule: string }): [string, Case][] {
  return [
    [
      'a group without a name',
      {
        method: 'POST',
        template: '/v1/groups',
        url: () => '/v1/groups',
        body: {},
        refused: 'GROUP_NAME_REQUIRED',
      },
    ],
    [
      'a group with a blank name',
      {
        method: 'POST',
        template: '/v1/groups',
        url: () => '/v1/groups',
        body: { name: ' \t' },
        refused: 'GROUP_NAME_REQUIRED',
      },
    ],
    [
      // Blank to the service (trim removes U+FEFF), and to a schema whatever its regex dialect.
      'a group name of U+FEFF alone',
      {
        method: 'POST',
        template: '/v1/groups',
        url: () => '/v1/groups',
        body: { name: '\ufeff' },
        refused: 'GROUP_NAME_REQUIRED',
      },
    ],
    [
      // Not white space to trim, though Python's \s says it is.
      'a group name of U+001C',
      { method: 'POST', template: '/v1/groups', url: () => '/v1/groups', body: { name: '\u001c' } },
    ],
    [
      'a group name of 257 characters',
      {
        method: 'POST',
        template: '/v1/groups',
        url: () => '/v1/groups',
        body: { name: 'g'.repeat(257) },
        refused: 'GROUP_PAYLOAD_INVALID',
      },
    ],
    [
      'a group name of 256 characters',
      { method: 'POST', template: '/v1/groups', url: () => '/v1/groups', body: { name: 'g'.repeat(256) } },
    ],
    [
      'a blank name on a group update',
      {
        method: 'PUT',
        template: '/v1/groups/{id}',
        url: () => `/v1/groups/${ids.group}`,
        body: { name: '' },
        refused: 'GROUP_NAME_REQUIRED',
      },
    ],
    [
      'a group update without a name',
      {
        method: 'PUT',
        template: '/v1/groups/{id}',
        url: () => `/v1/groups/${ids.group}`,
        body: { isFavourite: true },
      },
    ],
    [
      'a rule with an empty name',
      {
        method: 'POST',
        template: '/v1/rules',
        url: () => '/v1/rules',
        body: { ...delayRule(5), name: '' },
        refused: 'RULE_PAYLOAD_INVALID',
      },
    ],
    [
      'a rule with a blank name',
      {
        method: 'PUT',
        template: '/v1/rules/{ruleId}',
        url: () => `/v1/rules/${ids.rule}`,
        body: { name: '  ' },
        refused: 'RULE_PAYLOAD_INVALID',
      },
    ],
    [
      'a group id of another form',
      {
        method: 'GET',
        template: '/v1/groups/{id}',
        url: () => '/v1/groups/nope',
        refused: 'INVALID_GROUP_ID',
      },
    ],
    [
      'a group id of another form, deleting',
      {
        method: 'DELETE',
        template: '/v1/groups/{id}',
        url: () => '/v1/groups/Group_',
        refused: 'INVALID_GROUP_ID',
      },
    ],
    [
      'a group id of another form, its versions',
      {
        method: 'GET',
        template: '/v1/groups/{id}/versions',
        url: () => '/v1/groups/group_abc/versions',
        refused: 'INVALID_GROUP_ID',
      },
    ],
    [
      'a rule id of another form',
      {
        method: 'GET',
        template: '/v1/rules/{ruleId}',
        url: () => '/v1/rules/nope',
        refused: 'RULE_NOT_FOUND',
      },
    ],
    [
      'a rule id of another form, its versions',
      {
        method: 'GET',
        template: '/v1/rules/{ruleId}/versions',
        url: () => '/v1/rules/Header_abcde/versions',
        refused: 'RULE_NOT_FOUND',
      },
    ],
    [
      'a groupId holding a NUL',
      {
        method: 'GET',
        template: '/v1/rules',
        url: () => '/v1/rules?groupId=Group_a%00',
        refused: 'INVALID_QUERY',
      },
    ],
    [
      'a search holding a NUL',
      { method: 'GET', template: '/v1/rules', url: () => '/v1/rules?search=%00', refused: 'INVALID_QUERY' },
    ],
    [
      'a search of any other text',
      { method: 'GET', template: '/v1/rules', url: () => '/v1/rules?search=%F0%9F%98%80%01%7F' },
    ],
    [
      'pageSize 0',
      { method: 'GET', template: '/v1/rules', url: () => '/v1/rules?pageSize=0', refused: 'INVALID_QUERY' },
    ],
    [
      'pageSize 0000',
      {
        method: 'GET',
        template: '/v1/groups',
        url: () => '/v1/groups?pageSize=0000',
        refused: 'INVALID_QUERY',
      },
    ],
    [
      'pageSize 1001',
      {
        method: 'GET',
        template: '/v1/rules',
        url: () => '/v1/rules?pageSize=1001',
        refused: 'INVALID_QUERY',
      },
    ],
    ['pageSize 0001', { method: 'GET', template: '/v1/rules', url: () => '/v1/rules?pageSize=0001' }],
    ['pageSize 1000', { method: 'GET', template: '/v1/groups', url: () => '/v1/groups?pageSize=1000' }],
    [
      'limit 0 on the change feed',
      {
        method: 'GET',
        template: '/v1/changes',
        url: () => '/v1/changes?limit=0',
        refused: 'INVALID_QUERY',
      },
    ],
    [
      'limit 999 on the change feed',
      { method: 'GET', template: '/v1/changes', url: () => '/v1/changes?limit=999' },
    ],
    [
      'a delay over the largest maximum',
      {
        method: 'POST',
        template: '/v1/rules',
        url: () => '/v1/rules',
        body: delayRule(86_400_001),
        refused: 'RULE_PAIRS_INVALID',
      },
    ],
    [
      'a trace of an ftp URL',
      {
        method: 'POST',
        template: '/v1/trace',
        url: () => '/v1/trace',
        body: { request: { url: 'ftp://a.example/' } },
        refused: 'INVALID_TRACE_REQUEST',
      },
    ],
    [
      'a trace of a relative URL',
      {
        method: 'POST',
        template: '/v1/trace',
        url: () => '/v1/trace',
        body: { request: { url: '/checkout' } },
        refused: 'INVALID_TRACE_REQUEST',
      },
    ],
    [
      'a trace with a relative page URL',
      {
        method: 'POST',
        template: '/v1/trace',
        url: () => '/v1/trace',
        body: { request: { url: 'HTTPS://a.example/', pageUrl: 'page' } },
        refused: 'INVALID_TRACE_REQUEST',
      },
    ],
    [
      'a trace of a method that is not letters',
      {
        method: 'POST',
        template: '/v1/trace',
        url: () => '/v1/trace',
        body: { request: { url: 'https://a.example/', method: 'G3T' } },
        refused: 'INVALID_TRACE_REQUEST',
      },
    ],
    [
      'a trace naming ruleIds and bringing rules',
      {
        method: 'POST',
        template: '/v1/trace',
        url: () => '/v1/trace',
        body: { request: { url: 'https://a.example/' }, ruleIds: [ids.rule], rules: [delayRule(5)] },
        refused: 'INVALID_TRACE_REQUEST',
      },
    ],
    [
      'a trace of an inline rule of nulls, without name, ruleType or pairs',
      {
        method: 'POST',
        template: '/v1/trace',
        url: () => '/v1/trace',
        body: { request: { url: 'https://a.example/' }, rules: [{ description: null, status: null }] },
        refused: 'RULE_PAYLOAD_INVALID',
      },
    ],
    [
      'a trace of an inline rule',
      {
        method: 'POST',
        template: '/v1/trace',
        url: () => '/v1/trace',
        body: { request: { url: 'https://a.example/' }, rules: [delayRule(5)] },
      },
    ],
    [
      'a trace of an upper-case scheme',
      {
        method: 'POST',
        template: '/v1/trace',
        url: () => '/v1/trace',
        body: { request: { url: 'WSS://a.example/' } },
      },
    ],
    [
      'an import of a number',
      {
        method: 'POST',
        template: '/v1/import',
        url: () => '/v1/import',
        body: [1],
        refused: 'IMPORT_INVALID',
      },
    ],
    [
      'an import of a group without a name',
      {
        method: 'POST',
        template: '/v1/import',
        url: () => '/v1/import',
        body: [{ objectType: 'group' }],
        refused: 'IMPORT_INVALID',
      },
    ],
    [
      'an import of a record of neither kind',
      {
        method: 'POST',
        template: '/v1/import',
        url: () => '/v1/import',
        body: [{ objectType: 'page', name: 'x' }],
        refused: 'IMPORT_INVALID',
      },
    ],
    [
      'an import of a rule with a blank name',
      {
        method: 'POST',
        template: '/v1/import',
        url: () => '/v1/import',
        body: [{ ...delayRule(5), name: ' ' }],
        refused: 'IMPORT_INVALID',
      },
    ],
    [
      'an import of a group and a rule',
      {
        method: 'POST',
        template: '/v1/import',
        url: () => '/v1/import?dryRun=true',
        body: [
          { objectType: 'group', name: 'g' },
          { ...delayRule(5), objectType: 'rule' },
        ],
      },
    ],
    ...variableCases(),
  ];
}

/** Environments, variables and their values, each constraint once (names unique per case). */
function variableCases(): [string, Case][] {
  const environment = (name: string, refused?: ErrorName): Case => ({
    method: 'POST',
    template: '/v1/environments',
    url: () => '/v1/environments',
    body: { name },
    ...(refused ? { refused } : {}),
  });
  const variable = (body: Record<string, unknown>, refused?: ErrorName): Case => ({
    method: 'POST',
    template: '/v1/variables',
    url: () => '/v1/variables',
    body,
    ...(refused ? { refused } : {}),
  });
  const bad = 'VARIABLE_PAYLOAD_INVALID' as const;
  return [
    ['an environment name of 64 characters', environment(`e${'x'.repeat(63)}`)],
    [
      'an environment name of 65 characters',
      environment(`e${'x'.repeat(64)}`, 'ENVIRONMENT_PAYLOAD_INVALID'),
    ],
    ['an environment name with a dot and a dash', environment('qa.eu-1')],
    ['an environment name starting with a dash', environment('-qa', 'ENVIRONMENT_PAYLOAD_INVALID')],
    ['a variable name of 64 characters', variable({ name: `V${'X'.repeat(63)}` })],
    ['a variable name of 65 characters', variable({ name: `V${'X'.repeat(64)}` }, bad)],
    ['a variable name with a dash', variable({ name: 'A-B' }, bad)],
    [
      'a variable value of 8192 characters',
      variable({ name: 'LONGEST', values: { default: 'v'.repeat(8192) } }),
    ],
    [
      'a variable value of 8193 characters',
      variable({ name: 'TOO_LONG', values: { default: 'v'.repeat(8193) } }, bad),
    ],
    [
      'a variable value with a tab and a C1 character',
      variable({ name: 'TABBED', values: { default: 'a\tb\u0085c' } }),
    ],
    ['a variable value with a line feed', variable({ name: 'LF', values: { default: 'a\nb' } }, bad)],
    ['a variable value with DEL', variable({ name: 'DEL', values: { default: 'a\u007fb' } }, bad)],
    [
      'a variable description of 1024 characters',
      variable({ name: 'DESCRIBED', description: 'd'.repeat(1024) }),
    ],
    [
      'a variable description of 1025 characters',
      variable({ name: 'OVER', description: 'd'.repeat(1025) }, bad),
    ],
    [
      'a key bound to no environment name',
      {
        method: 'POST',
        template: '/v1/keys',
        url: () => '/v1/keys',
        body: { name: 'bound', scope: 'read', environment: 'a b' },
        refused: 'KEY_PAYLOAD_INVALID',
      },
    ],
    [
      'variables of page size 0',
      {
        method: 'GET',
        template: '/v1/variables',
        url: () => '/v1/variables?pageSize=0',
        refused: 'INVALID_QUERY',
      },
    ],
  ];
}
