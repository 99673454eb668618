// The request schemas of the OpenAPI document are as exact as the service's checks: each constraint
// the service enforces is in the document (openapi-exact-cases.ts, one request per constraint), every
// number is bounded, and every pattern is one a generator reads fast. On SQLite and PostgreSQL.

import { beforeAll, describe, expect, it } from 'vitest';
import { EPOCH_MS_BIGINT } from '../../src/model/common.js';
import { type Contract, contractOf } from '../helpers/contract.js';
import { createGroup, createRule, expectError } from '../helpers/fixtures.js';
import { type RequestContract, requestContractOf } from '../helpers/request-contract.js';
import { forEachDatabase, useTestApp } from '../helpers/test-app.js';
import { exactCases } from './openapi-exact-cases.js';

forEachDatabase((db) => {
  const t = useTestApp({ db });
  let contract: Contract;
  let requests: RequestContract;
  const ids = { group: '', rule: '' };
  beforeAll(async () => {
    contract = await contractOf(t.app);
    requests = await requestContractOf(t.app);
    ids.group = String((await createGroup(t)).id);
    ids.rule = String((await createRule(t)).id);
  });

  describe('request schemas as exact as the checks', () => {
    it.each(exactCases(ids))('%s: the document and the service agree', async (_name, c) => {
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

    it('lists what the schemas cannot say in one place, the description of the document', () => {
      const { description } = (contract.document as unknown as { info: { description: string } }).info;
      const section = description.slice(description.indexOf('## What the schemas cannot say'));
      expect(section).not.toBe(description);
      for (const limit of [
        'UTF-16',
        'trimmed',
        'NUL',
        'RE2',
        'WHATWG',
        'onError=skip',
        'If-Match',
        'X-Request-Id',
      ])
        expect(section).toContain(limit);
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
          // A time kept in a bigint column (a key's expiry) may pass PostgreSQL's `integer`.
          const held = String(schema.description).startsWith(EPOCH_MS_BIGINT)
            ? Number.MAX_SAFE_INTEGER
            : 2 ** 31 - 1;
          if (typeof schema.minimum !== 'number' || max === undefined || max > held) unbounded.push(where);
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

    // JSON Schema reads patterns as JavaScript does, Schemathesis (Python) as Python does: `\s`, `\d`, `\w`
    // and `\b` mean other characters there (Python's `\S` takes U+FEFF, which the service trims away).
    it('has only patterns every regex dialect reads alike: no \\s, \\d, \\w or \\b', () => {
      const patterns = new Set<string>();
      JSON.stringify(contract.document, (key, value) => {
        if (key === 'pattern' && typeof value === 'string') patterns.add(value);
        return value;
      });
      const dialectal = [...patterns].filter((p) => /(?<!\\)(?:\\\\)*\\[sSdDwWbB]/.test(p));
      expect(dialectal).toStrictEqual([]);
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
});
