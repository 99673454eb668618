// Shapes of /v1/test-suites: a suite of `rulekeeper test` cases as stored, listed, written and run.
import { type Static, Type } from '@sinclair/typebox';
import { pageQuery } from '../../http/schemas.js';
import { DocumentedName, STORABLE_TEXT_PATTERN, Timestamp } from '../../model/common.js';
import { compile } from '../../validation.js';

/** What a suite id looks like; any other id is simply not found. */
export const SUITE_ID_PATTERN = /^suite_[a-z0-9]{1,64}$/;

/** A case as a `rulekeeper test` file holds it (rule-tests/rule-test-file.ts checks it). */
const TestCase = Type.Object(
  {
    name: Type.String({ description: 'What the case checks, as its report names it.' }),
    request: Type.Record(Type.String(), Type.Unknown(), {
      description: 'The request to trace, as `request` of POST /v1/trace (checked when the suite runs).',
    }),
    expect: Type.Record(Type.String(), Type.Unknown(), {
      description:
        'What the outcome must hold: any field of the trace outcome (objects by the keys given, arrays ' +
        'whole), `requestHeaders` by name in any case (null: absent), and `acted` (rule ids, or false).',
    }),
  },
  { $id: 'TestCase', description: 'One case, exactly as in a `rulekeeper test` file.' },
);

const exampleCases = [
  {
    name: 'checkout goes to staging',
    request: { url: 'https://shop.example.com/checkout', resourceType: 'main_frame' },
    expect: { url: 'https://staging.example.com/checkout', redirected: true },
  },
];

const name = DocumentedName('Unique in the workspace; 1 to 256 characters after trimming.', ['checkout']);
const cases = Type.Array(TestCase, {
  description:
    'The cases, as in a `rulekeeper test` file; at most MAX_TEST_SUITE_CASES of them (default 1000), ' +
    'the body within MAX_BODY_BYTES.',
});

export const TestSuiteCreate = Type.Object(
  { name, cases },
  {
    $id: 'TestSuiteCreate',
    additionalProperties: false,
    examples: [{ name: 'checkout', cases: exampleCases }],
  },
);

export const TestSuiteUpdate = Type.Object(
  { name: Type.Optional(name), cases: Type.Optional(cases) },
  {
    $id: 'TestSuiteUpdate',
    additionalProperties: false,
    description: 'Fields left out keep their values.',
    examples: [{ cases: exampleCases }],
  },
);

/** The body as the service checks it: the cases themselves are checked as a file's are. */
export const checkTestSuiteWrite = compile(
  Type.Object(
    { name: Type.Optional(Type.String()), cases: Type.Optional(Type.Array(Type.Unknown())) },
    { additionalProperties: false },
  ),
);

const summaryFields = {
  id: Type.String({ pattern: SUITE_ID_PATTERN.source, examples: ['suite_k3v9x2m8q1w7e4r0'] }),
  name: Type.String({ examples: ['checkout'] }),
  caseCount: Type.Integer({ minimum: 0, description: 'How many cases the suite holds.' }),
  createdBy: Type.String({ description: 'The user id of who made it.', examples: ['usr_p2f8w0c4n6aa'] }),
  lastModifiedBy: Type.String({ examples: ['usr_p2f8w0c4n6aa'] }),
  creationDate: Timestamp,
  modificationDate: Timestamp,
};

export const TestSuiteListItem = Type.Object(summaryFields, {
  $id: 'TestSuiteListItem',
  additionalProperties: false,
  description: 'A suite as listed: without its cases.',
});
export type TestSuiteListItem = Static<typeof TestSuiteListItem>;

export const TestSuite = Type.Object(
  { ...summaryFields, cases: Type.Array(TestCase) },
  { $id: 'TestSuite', additionalProperties: false, description: 'A suite of `rulekeeper test` cases.' },
);
export type TestSuite = Static<typeof TestSuite>;

export const TestSuiteParams = Type.Object({
  suiteId: Type.String({
    pattern: SUITE_ID_PATTERN.source,
    description: 'The suite id, as GET /v1/test-suites lists it; any other is not found.',
    examples: ['suite_k3v9x2m8q1w7e4r0'],
  }),
});

const nameFilter = (checked: boolean) =>
  Type.Optional(
    Type.String({
      ...(checked ? {} : { pattern: STORABLE_TEXT_PATTERN }),
      maxLength: 1024,
      description: 'Only the suite of this name (compared after trimming, exactly).',
    }),
  );

export const TestSuiteListQuery = Type.Object(
  { ...pageQuery(false), name: nameFilter(false) },
  { additionalProperties: false },
);
export const checkTestSuiteListQuery = compile(
  Type.Object({ ...pageQuery(true), name: nameFilter(true) }, { additionalProperties: false }),
);

const CaseResult = Type.Object(
  {
    name: Type.String(),
    passed: Type.Boolean(),
    problems: Type.Array(Type.String(), {
      description:
        'What differed, one line each (`outcome.url: expected "…", got "…"`), or why the request could ' +
        'not be traced; empty when the case passed. The lines `rulekeeper test` prints.',
    }),
  },
  { additionalProperties: false },
);

export const TestSuiteRun = Type.Object(
  {
    suite: Type.Object({ id: Type.String(), name: Type.String() }, { additionalProperties: false }),
    cases: Type.Array(CaseResult, { description: 'Every case, in the order of the suite.' }),
    passed: Type.Integer({ minimum: 0 }),
    failed: Type.Integer({ minimum: 0 }),
    ranAt: Timestamp,
  },
  {
    $id: 'TestSuiteRun',
    additionalProperties: false,
    examples: [
      {
        suite: { id: 'suite_k3v9x2m8q1w7e4r0', name: 'checkout' },
        cases: [
          { name: 'checkout goes to staging', passed: true, problems: [] },
          {
            name: 'ads are blocked',
            passed: false,
            problems: ['outcome.cancelled: expected true, got false'],
          },
        ],
        passed: 1,
        failed: 1,
        ranAt: 1763769600000,
      },
    ],
  },
);
export type TestSuiteRun = Static<typeof TestSuiteRun>;
