// Schemas of POST /v1/trace: the request to evaluate, which rules, and the explained answer.
import { type Static, Type } from '@sinclair/typebox';
import { MAX_PAIRS } from '../../model/rule.js';
import { oneOf } from '../../model/rule-types/schema-helpers.js';
import { RESOURCE_TYPES } from '../../model/rule-types/source.js';
import { compile } from '../../validation.js';

export const MAX_TRACE_RULES = 100;
/** Limits of one trace, so that no trace can take more than its share (the OpenAPI document says them). */
export const MAX_TRACE_URL = 16_384;
export const MAX_TRACE_BODY = 1_048_576;
export const MAX_TRACE_PAIRS = 1000;

const TraceRequest = Type.Object(
  {
    url: Type.String({
      maxLength: MAX_TRACE_URL,
      description:
        'An absolute http, https, ws or wss URL; parsed and serialised as a browser sends it. At most 16 KiB.',
      examples: ['https://shop.example.com/checkout?x=1'],
    }),
    method: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 16,
        description: 'HTTP method, any letter case (default GET).',
        examples: ['GET'],
      }),
    ),
    resourceType: Type.Optional(
      oneOf(RESOURCE_TYPES, {
        description: 'What kind of request it is; absent when unknown.',
        examples: ['main_frame'],
      }),
    ),
    pageUrl: Type.Optional(
      Type.String({
        maxLength: MAX_TRACE_URL,
        description: 'The page that made the request; absent when unknown. At most 16 KiB.',
      }),
    ),
    headers: Type.Optional(
      Type.Record(Type.String(), Type.Union([Type.String(), Type.Array(Type.String())]), {
        description: 'Request headers (names in any case).',
      }),
    ),
    body: Type.Optional(
      Type.String({
        maxLength: MAX_TRACE_BODY,
        description: 'The request body (for requestPayload filters), parsed once per trace. At most 1 MiB.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const TraceBody = Type.Object(
  {
    request: TraceRequest,
    ruleIds: Type.Optional(
      Type.Array(Type.String({ maxLength: 256 }), {
        maxItems: 1000,
        description: "Only these of the workspace's rules (default: all of them).",
      }),
    ),
    includeInactive: Type.Optional(
      Type.Boolean({ description: 'Also explain rules that are inactive (or whose group is).' }),
    ),
    environment: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$',
        description:
          "The environment whose variables `{{NAME}}` in the rules take (default: the key's, else `default`); " +
          'one the workspace lacks is 400 Invalid trace request at /environment.',
        examples: ['staging'],
      }),
    ),
    rules: Type.Optional(
      Type.Array(Type.Unknown(), {
        minItems: 1,
        maxItems: MAX_TRACE_RULES,
        description:
          "Unsaved rules to evaluate instead of the workspace's, each validated as POST /v1/rules would; " +
          `at most ${MAX_TRACE_RULES} rules and ${MAX_TRACE_PAIRS} pairs in all (past that, Invalid trace request at /rules).`,
      }),
    ),
  },
  {
    additionalProperties: false,
    examples: [
      {
        request: { url: 'https://shop.example.com/checkout?x=1', method: 'GET', resourceType: 'main_frame' },
      },
      {
        request: { url: 'https://api.example.com/v1/users' },
        rules: [
          {
            name: 'draft',
            ruleType: 'Redirect',
            status: 'Active',
            pairs: [
              {
                source: { key: 'host', operator: 'Equals', value: 'api.example.com' },
                destinationType: 'url',
                destination: 'https://staging.example.com/v1/users',
              },
            ],
          },
        ],
      },
    ],
  },
);
export type TraceBody = Static<typeof TraceBody>;
export const checkTraceBody = compile(TraceBody);

export const TraceQuery = Type.Object(
  {
    explain: Type.Optional(
      Type.Union([Type.Literal('all'), Type.Literal('acted'), Type.Literal('none')], {
        default: 'all',
        description:
          '`all`: every rule evaluated, explained; `acted`: only the rules that acted (found the fast ' +
          'way, as the proxy finds them: far less work and a far smaller answer); `none`: the outcome alone (`rules` is empty).',
      }),
    ),
  },
  { additionalProperties: false },
);
export type TraceExplain = NonNullable<Static<typeof TraceQuery>['explain']>;
export const checkTraceQuery = compile(TraceQuery);

const Check = Type.Object(
  {
    check: Type.String({ examples: ['source'] }),
    passed: Type.Boolean(),
    detail: Type.String({ examples: ['Url "https://shop.example.com/checkout?x=1" contains "checkout"'] }),
  },
  { additionalProperties: false },
);

const PairVerdict = Type.Object(
  {
    index: Type.Integer({ minimum: 0, maximum: MAX_PAIRS - 1 }),
    pairId: Type.Optional(Type.String()),
    matched: Type.Boolean(),
    checks: Type.Array(Check, { description: 'In order, up to the first that failed.' }),
    captures: Type.Array(Type.String()),
    effect: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
  },
  { additionalProperties: false },
);

const RuleVerdict = Type.Object(
  {
    ruleId: Type.String({ description: 'The rule id; `inline:N` for the N-th unsaved rule.' }),
    name: Type.String(),
    ruleType: Type.String(),
    acted: Type.Boolean(),
    reason: oneOf(
      [
        'acted',
        'no_pair_matched',
        'inactive',
        'group_inactive',
        'overridden',
        'cancelled',
        'after_redirect',
        'no_change',
        'invalid_in_environment',
      ],
      {
        description:
          '`invalid_in_environment`: resolved in this environment, the rule fails the checks a written rule ' +
          'passes (`problems` says which), so it does not act here.',
      },
    ),
    overriddenBy: Type.Optional(Type.String()),
    problems: Type.Optional(
      Type.Array(
        Type.Object({ path: Type.String(), message: Type.String() }, { additionalProperties: false }),
        { description: 'With `invalid_in_environment`: what its variables broke, pointing into the rule.' },
      ),
    ),
    variables: Type.Optional(
      Type.Array(Type.String(), { description: 'The variables whose values the rule took, by name.' }),
    ),
    pairs: Type.Array(PairVerdict),
  },
  { additionalProperties: false },
);

const VariableUsed = Type.Object(
  {
    name: Type.String(),
    environment: Type.String({ description: 'The environment the value came from.' }),
    secret: Type.Boolean(),
    value: Type.Optional(Type.String({ description: 'The value used; never given for a secret.' })),
  },
  { additionalProperties: false },
);

const Outcome = Type.Object(
  {
    cancelled: Type.Boolean(),
    url: Type.String(),
    redirected: Type.Boolean(),
    requestHeaders: Type.Record(Type.String(), Type.Union([Type.String(), Type.Array(Type.String())])),
    responseHeaders: Type.Array(Type.Record(Type.String(), Type.String())),
    delayMs: Type.Integer({ minimum: 0 }),
    requestBody: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
    response: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]),
    scripts: Type.Array(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: false },
);

export const TraceAnswer = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Object(
      {
        request: Type.Object(
          {
            url: Type.String(),
            method: Type.String(),
            resourceType: Type.Optional(Type.String()),
            pageUrl: Type.Optional(Type.String()),
          },
          { additionalProperties: false },
        ),
        environment: Type.String({
          description:
            "The environment whose variables the rules took: the body's, else the key's, else `default`.",
          examples: ['staging'],
        }),
        variables: Type.Array(VariableUsed, {
          description:
            'The variables the rules listed took (with `explain=none`, the rules that acted), by name: ' +
            'a secret one without its value.',
        }),
        outcome: Outcome,
        rules: Type.Array(RuleVerdict, {
          description:
            'Every rule evaluated, in list order; with `explain=acted` only the rules that acted, with `explain=none` none.',
        }),
        warnings: Type.Optional(
          Type.Array(
            Type.Object({ path: Type.String(), message: Type.String() }, { additionalProperties: false }),
            {
              description:
                'What was converted in the unsaved rules, as an import converts it (older Headers and Redirect formats, page domains); `path` points at the rule in the body.',
            },
          ),
        ),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
