// The ten rule types, listed once, and the validation of a rule's `pairs` against its type.
import { type TObject, Type } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import type { ErrorDetail } from '../../errors.js';
import { describeErrors } from '../../validation.js';
import { PathMap } from '../path-map.js';
import { cancel } from './cancel.js';
import { delay } from './delay.js';
import { headers } from './headers.js';
import { queryParam } from './query-param.js';
import { redirect } from './redirect.js';
import { replace } from './replace.js';
import { request } from './request.js';
import { response } from './response.js';
import { type PairContext, RULE_TYPES, type RuleType, type RuleTypeDefinition } from './rule-type.js';
import { isRecord } from './schema-helpers.js';
import { script } from './script.js';
import { userAgent } from './user-agent.js';

export { type PairContext, RULE_TYPES, type RuleType, type RuleTypeDefinition } from './rule-type.js';

export const ruleTypes: Record<RuleType, RuleTypeDefinition> = {
  Redirect: redirect,
  Cancel: cancel,
  Replace: replace,
  Headers: headers,
  UserAgent: userAgent,
  Script: script,
  QueryParam: queryParam,
  Response: response,
  Request: request,
  Delay: delay,
};

/**
 * Each type's pair as a body writes it (`id` optional), with its valid examples, for the OpenAPI
 * document: one object per type, so that every schema of a type refers to the one component
 * (`RedirectPairInput`); validation uses the definitions' own.
 */
export const pairSchemas = Object.fromEntries(
  RULE_TYPES.map((name) => {
    const { pair, examples } = ruleTypes[name];
    return [name, { ...pair, $id: `${pair.$id}Input`, examples: examples.valid.map((e) => e.pair) }];
  }),
) as Record<RuleType, TObject>;

/** Each type's pair as answered (`RedirectPair`): the same, with its `id` always there. */
export const answeredPairSchemas = Object.fromEntries(
  RULE_TYPES.map((name) => {
    const { pair, examples } = ruleTypes[name];
    return [
      name,
      {
        ...pair,
        required: [...(pair.required ?? []), 'id'],
        examples: examples.valid.map((e) => ({ id: 'a1b2c', ...e.pair })),
      },
    ];
  }),
) as Record<RuleType, TObject>;

/** Any pair of any type: where the rule's type is not in the same body (a PUT that leaves it out). */
export const PairSchema = Type.Union(
  RULE_TYPES.map((name) => pairSchemas[name]),
  { description: 'A pair; its shape depends on the ruleType of the rule.' },
);

// Compiled once at load: compiling is far slower than checking.
const validators = new Map(RULE_TYPES.map((name) => [name, TypeCompiler.Compile(ruleTypes[name].pair)]));

/**
 * Normalises and validates every pair of a rule of type `ruleType`. Returns the normalised pairs and
 * every error of every pair, each path a JSON Pointer into the request body as sent
 * (`/pairs/0/source/operator`, `/pairs/0/response/statusCode`).
 * `pairs[i]` is input pair i normalised (`{}` for one that is not an object); store them only when
 * `details` is empty. Counting pairs is the caller's job.
 * Never throws on JSON input and never mutates it.
 */
export function checkPairs(
  ruleType: RuleType,
  pairs: unknown[],
  ctx: PairContext,
): { pairs: Record<string, unknown>[]; details: ErrorDetail[] } {
  const definition = ruleTypes[ruleType];
  const validator = validators.get(ruleType);
  if (!definition || !validator) throw new TypeError(`unknown rule type ${JSON.stringify(ruleType)}`);
  const normalised: Record<string, unknown>[] = [];
  const details: ErrorDetail[] = [];
  // A plain loop: the input may be sparse, and a pair's details may be too many to spread into push().
  for (let index = 0; index < pairs.length; index += 1) {
    const prefix = `/pairs/${index}`;
    const paths = new PathMap();
    const pair = definition.normalise(pairs[index], paths);
    if (!isRecord(pair)) {
      normalised.push({}); // keeps pairs[i] in line with the input's index i
      details.push({ path: prefix, message: 'must be an object' });
      continue;
    }
    normalised.push(pair);
    const problems = validator.Check(pair)
      ? definition.check(pair, ctx)
      : describeErrors(validator.Errors(pair));
    // Paths into the pair as it was sent, not as normalised.
    for (const problem of problems) details.push({ ...problem, path: prefix + paths.toSent(problem.path) });
  }
  return { pairs: normalised, details };
}
