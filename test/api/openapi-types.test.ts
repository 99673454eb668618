// The types a client generates from the OpenAPI document (openapi-typescript) tie a rule's pairs to its
// ruleType: a Delay rule with Redirect pairs does not compile, in a body or read from an answer.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/test-app.js';
import { typeProblems } from '../helpers/typescript.js';

/** A client of the generated types; each `@ts-expect-error` must meet an error, or it is one itself. */
const CLIENT = `
import type { components, paths } from './api.js';
type S = components['schemas'];
type CreateBody = paths['/v1/rules']['post']['requestBody']['content']['application/json'];
type UpdateBody = paths['/v1/rules/{ruleId}']['put']['requestBody']['content']['application/json'];
type Answer = paths['/v1/rules/{ruleId}']['get']['responses'][200]['content']['application/json'];

const source = { key: 'host', operator: 'Equals', value: 'a.example' } as const;
const redirectPair: S['RedirectPairInput'] = { source, destinationType: 'url', destination: 'https://b.example' };
const delayPair: S['DelayPairInput'] = { source, delay: 5 };

export const created: CreateBody = { name: 'x', ruleType: 'Delay', pairs: [delayPair] };
// @ts-expect-error a Delay rule with Redirect pairs
export const mixed: CreateBody = { name: 'x', ruleType: 'Delay', pairs: [redirectPair] };
export const updated: UpdateBody = { ruleType: 'Delay', pairs: [delayPair] };
// @ts-expect-error a PUT naming Delay, with Redirect pairs
export const mixedUpdate: UpdateBody = { ruleType: 'Delay', pairs: [redirectPair] };
// Without ruleType, the pairs are of the stored type, which the client cannot know.
export const keepingType: UpdateBody = { pairs: [redirectPair] };

export function read(answer: Answer): number {
  // A client may send back what it read (decision 5).
  const back: UpdateBody = { ...answer.data };
  if (answer.data.ruleType !== 'Delay') return back === answer.data ? 0 : 1;
  // @ts-expect-error a Delay rule's pairs have no destination
  const destination: string = answer.data.pairs[0].destination;
  const id: string = answer.data.pairs[0].id; // every answered pair has its id
  return answer.data.pairs[0].delay + destination.length + id.length;
}
`;

describe('client types generated from the OpenAPI document', () => {
  const t = useTestApp();

  it('tie every rule to its ruleType: a Delay rule with Redirect pairs does not compile', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json() as OpenAPI3;
    const dir = mkdtempSync(join(tmpdir(), 'rulekeeper-client-'));
    try {
      writeFileSync(join(dir, 'api.d.ts'), astToString(await openapiTS(document)));
      writeFileSync(join(dir, 'client.ts'), CLIENT);
      const problems = typeProblems(join(dir, 'client.ts'), {
        module: ts.ModuleKind.ESNext,
        moduleResolution: ts.ModuleResolutionKind.Bundler,
        lib: ['lib.es2022.d.ts'],
        types: [],
      });
      expect(problems).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
