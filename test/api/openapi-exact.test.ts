// The OpenAPI document says exactly what the service takes: what it refuses, the document calls
// invalid, and what the document calls valid, it takes (test/security/openapi-fuzz.test.ts generates
// requests from the document; here, one case per constraint). And every answer, including the HTTP
// parser's refusals, is the documented error body with a status each operation lists.
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientErrorResponse } from '../../src/plugins/client-error.js';
import { type Contract, contractOf } from '../helpers/contract.js';
import { createGroup, createRule, expectError } from '../helpers/fixtures.js';
import { type RequestContract, requestContractOf } from '../helpers/request-contract.js';
import { forEachDatabase, useTestApp } from '../helpers/test-app.js';

/** What a raw exchange on one connection answered: status, headers (lower-case) and body text. */
async function rawExchange(port: number, text: string | Buffer) {
  const received = await new Promise<string>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    let data = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk) => {
      data += chunk;
    });
    socket.on('end', () => resolve(data));
    socket.on('close', () => resolve(data));
    socket.on('error', reject);
  });
  const [head = '', body = ''] = received.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((line) => [
      line.slice(0, line.indexOf(':')).toLowerCase(),
      line.slice(line.indexOf(':') + 1).trim(),
    ]),
  );
  return { statusCode: Number(statusLine.split(' ')[1]), headers, body };
}

forEachDatabase((db) => {
  const t = useTestApp({ db });
  let contract: Contract;
  let requests: RequestContract;
  beforeAll(async () => {
    contract = await contractOf(t.app);
    requests = await requestContractOf(t.app);
  });

  describe('restore takes versions the databases can hold', () => {
    it('documents the largest version, and answers a larger one 400 on both databases', async () => {
      const rule = await createRule(t);
      const group = await createGroup(t);
      for (const [template, url, code] of [
        ['/v1/rules/{ruleId}/restore', `/v1/rules/${rule.id}/restore`, 'RULE_PAYLOAD_INVALID'],
        ['/v1/groups/{id}/restore', `/v1/groups/${group.id}/restore`, 'GROUP_PAYLOAD_INVALID'],
      ] as const) {
        for (const version of [2 ** 31, 2 ** 53, 1e300]) {
          expect(requests.bodyProblems('post', template, { version }), `${version}`).not.toStrictEqual([]);
          expectError(await t.call('POST', url, { body: { version } }), code, [
            { path: '/version', message: 'must be at most 2147483647' },
          ]);
        }
        const largest = { version: 2 ** 31 - 1 };
        expect(requests.bodyProblems('post', template, largest)).toStrictEqual([]);
        expectError(await t.call('POST', url, { body: largest }), 'VERSION_NOT_FOUND', [
          { path: '/version', message: 'no such kept version' },
        ]);
      }
    });
  });

  describe('request schemas as exact as the checks', () => {
    let group: string;
    let rule: string;
    beforeAll(async () => {
      group = String((await createGroup(t)).id);
      rule = String((await createRule(t)).id);
    });
    const delayRule = (delay: number) => ({
      name: 'slow',
      ruleType: 'Delay',
      pairs: [{ source: { key: 'host', operator: 'Equals', value: 'a.example' }, delay }],
    });
    type Case = {
      method: 'GET' | 'POST' | 'PUT' | 'DELETE';
      template: string;
      url: () => string;
      body?: unknown;
      /** The error the service answers; undefined: accepted (2xx). */
      refused?: Parameters<typeof expectError>[1];
    };
    // Each request: valid by the document exactly when the service takes it.
    const cases: [string, Case][] = [
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
          url: () => `/v1/groups/${group}`,
          body: { name: '' },
          refused: 'GROUP_NAME_REQUIRED',
        },
      ],
      [
        'a group update without a name',
        {
          method: 'PUT',
          template: '/v1/groups/{id}',
          url: () => `/v1/groups/${group}`,
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
          url: () => `/v1/rules/${rule}`,
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
    ];

    it.each(cases)('%s: the document and the service agree', async (_name, c) => {
      const [path, query = ''] = c.url().split('?');
      const templateParts = c.template.split('/');
      const pathParams = Object.fromEntries(
        templateParts.flatMap((part, index) =>
          part.startsWith('{')
            ? [[part.slice(1, -1), decodeURIComponent(path?.split('/')[index] ?? '')]]
            : [],
        ),
      );
      const problems = [
        ...requests.parameterProblems(c.method, c.template, {
          path: pathParams,
          query: Object.fromEntries(new URLSearchParams(query)),
        }),
        ...(c.body === undefined ? [] : requests.bodyProblems(c.method, c.template, c.body)),
      ];
      const reply = await t.call(c.method, c.url(), c.body === undefined ? {} : { body: c.body });
      if (c.refused) {
        expect(problems, 'the document calls it valid').not.toStrictEqual([]);
        expectError(reply, c.refused, reply.body.details === undefined ? undefined : reply.body.details);
      } else {
        expect(problems).toStrictEqual([]);
        expect(reply.status, JSON.stringify(reply.body)).toBeLessThan(300);
      }
    });

    it('takes any X-Request-Id, as the document says: one of another form is replaced', async () => {
      const header = { 'X-Request-Id': 'not an id!' };
      expect(requests.parameterProblems('get', '/v1/rules', { header })).toStrictEqual([]);
      const reply = await t.call('GET', '/v1/rules', { headers: header });
      expect(reply.status).toBe(200);
      expect(reply.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    });

    it('bounds every number of every request, within what the databases hold', () => {
      const unbounded: string[] = [];
      const walk = (node: unknown, where: string): void => {
        if (node === null || typeof node !== 'object') return;
        const schema = node as Record<string, unknown>;
        if (schema.type === 'integer' || schema.type === 'number') {
          const max = schema.maximum as number | undefined;
          if (typeof schema.minimum !== 'number' || max === undefined || max > 2 ** 31 - 1)
            unbounded.push(where);
        }
        for (const [key, value] of Object.entries(schema)) walk(value, `${where}/${key}`);
      };
      const document = contract.document as unknown as {
        paths: Record<string, Record<string, object>>;
        components: { schemas: Record<string, unknown> };
      };
      const seen = new Set<string>();
      const follow = (node: unknown, where: string): void => {
        // Request schemas reach components through $ref: follow each once.
        const text = JSON.stringify(node);
        for (const [, name] of text.matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
          if (!name || seen.has(name)) continue;
          seen.add(name);
          walk(document.components.schemas[name], `#/components/schemas/${name}`);
          follow(document.components.schemas[name], name);
        }
        walk(node, where);
      };
      for (const [path, operations] of Object.entries(document.paths))
        for (const [method, operation] of Object.entries(operations)) {
          const { parameters, requestBody } = operation as { parameters?: unknown; requestBody?: unknown };
          follow({ parameters, requestBody }, `${method} ${path}`);
        }
      expect(seen.size).toBeGreaterThan(10);
      expect(unbounded).toStrictEqual([]);
    });

    it('has only patterns a generator reads fast: no quantified groups, backreferences or lookaround', () => {
      const patterns = new Set<string>();
      JSON.stringify(contract.document, (key, value) => {
        if (key === 'pattern' && typeof value === 'string') patterns.add(value);
        return value;
      });
      expect(patterns.size).toBeGreaterThan(10);
      const slow = [...patterns].filter((p) => /\)[*+?{]|\\[1-9]|\\k<|\(\?<?[=!]/.test(p));
      expect(slow).toStrictEqual([]);
    });
  });

  it('answers headers that never finish arriving with the error body too (408)', () => {
    const text = clientErrorResponse(
      Object.assign(new Error('timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }),
    );
    const [head = '', body = ''] = text.split('\r\n\r\n');
    const [statusLine = '', ...lines] = head.split('\r\n');
    const headers = Object.fromEntries(lines.map((line) => line.split(': ') as [string, string]));
    const answer = { statusCode: Number(statusLine.split(' ')[1]), headers, body };
    expect(answer.statusCode).toBe(408);
    expect(JSON.parse(body)).toStrictEqual({
      success: false,
      message: 'Request timeout',
      code: 'REQUEST_TIMEOUT',
      requestId: headers['x-request-id'],
    });
    expect(Number(headers['content-length'])).toBe(Buffer.byteLength(body));
    for (const [path, operations] of Object.entries(contract.document.paths))
      for (const method of Object.keys(operations)) {
        const url = path.replace(/\{[^}]+\}/g, 'Group_x1y2z');
        expect(() => contract.check(method, url, answer), `${method} ${path}`).not.toThrow();
      }
  });

  describe("the HTTP parser's refusals", () => {
    let port: number;
    beforeAll(async () => {
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      port = (t.app.server.address() as { port: number }).port;
    });
    afterAll(async () => {
      t.app.server.closeAllConnections();
    });

    const cases = [
      ['a control character in a header value', 'X-Odd: a\u0001b\r\n', 400, 'MALFORMED_REQUEST'],
      ['a header line without a colon', 'no colon here\r\n', 400, 'MALFORMED_REQUEST'],
      ['a space before the colon of a name', 'X-Odd : a\r\n', 400, 'MALFORMED_REQUEST'],
      ['headers larger than the limit', `X-Big: ${'a'.repeat(20_000)}\r\n`, 431, 'HEADERS_TOO_LARGE'],
    ] as const;

    it.each(cases)(
      'answers %s with the error body, an X-Request-Id and a status every operation lists',
      async (_name, line, status, code) => {
        const answer = await rawExchange(
          port,
          Buffer.from(
            `GET /v1/rules HTTP/1.1\r\nHost: localhost\r\nX-Api-Key: ${t.owner.key}\r\n${line}\r\n`,
            'latin1',
          ),
        );
        expect(answer.statusCode, answer.body).toBe(status);
        expect(answer.headers['content-type']).toMatch(/^application\/json/);
        const body = JSON.parse(answer.body);
        expect(body).toStrictEqual({
          success: false,
          message: expect.any(String),
          code,
          requestId: answer.headers['x-request-id'],
        });
        expect(body.requestId).toMatch(/^[0-9a-f-]{36}$/);
        // The request could have been meant for any operation: each lists the status and its body.
        for (const [path, operations] of Object.entries(contract.document.paths))
          for (const method of Object.keys(operations)) {
            const url = path.replace(/\{[^}]+\}/g, 'Group_x1y2z');
            expect(() => contract.check(method, url, answer), `${method} ${path}`).not.toThrow();
          }
      },
    );
  });
});
