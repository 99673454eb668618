// The OpenAPI document says exactly what the service takes: what it refuses, the document calls
// invalid, and what the document calls valid, it takes (test/api/openapi-fuzz.test.ts generates
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
