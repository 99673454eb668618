// A lint finding: what the rule lint says about a workspace's rules (GET /v1/lint, and the `warnings`
// of a rule's write), declared once for the engine, the API document and the console.
import { type Static, Type } from '@sinclair/typebox';

export const FINDING_CODES = [
  'redirect_loop',
  'shadowed',
  'no_op',
  'matches_everything',
  'inactive_in_active',
  'active_in_inactive_group',
  'duplicate',
  'browser_unsupported',
  'code_needs_allow',
  'never_acted',
  'undefined_variable',
  'invalid_in_environment',
] as const;
export type FindingCode = (typeof FINDING_CODES)[number];

/** In the order findings are listed, the most serious first. */
export const SEVERITIES = ['error', 'warning', 'info'] as const;
export type Severity = (typeof SEVERITIES)[number];

export const FindingPointer = Type.Object(
  {
    ruleId: Type.String(),
    path: Type.String({ description: 'A JSON Pointer into that rule.', examples: ['/pairs/0/source/value'] }),
  },
  { additionalProperties: false },
);

export const Finding = Type.Object(
  {
    code: Type.Union(
      FINDING_CODES.map((code) => Type.Literal(code)),
      { description: 'What was found; the README lists each code and when it is reported.' },
    ),
    severity: Type.Union(
      SEVERITIES.map((severity) => Type.Literal(severity)),
      {
        description: '`error`: the rules break requests; `warning`: a rule does not do what it says; `info`.',
      },
    ),
    ruleIds: Type.Array(Type.String(), {
      minItems: 1,
      description: 'The rules concerned, the one the finding is about first.',
    }),
    pointers: Type.Array(FindingPointer, { description: 'Where in those rules.' }),
    message: Type.String({
      examples: [
        '"Staging" can never act: "All to prod" comes earlier and decides the Redirect effect first …',
      ],
    }),
    hint: Type.String({ description: 'What to do about it.' }),
  },
  { $id: 'LintFinding', additionalProperties: false },
);
export type Finding = Static<typeof Finding>;
