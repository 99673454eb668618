// Schemas of GET /v1/lint: the findings, and the rules they name.
import { type Static, Type } from '@sinclair/typebox';
import { Status } from '../../model/common.js';
import { Finding } from '../../model/finding.js';
import { RuleTypeSchema } from '../../model/rule.js';
import { compile } from '../../validation.js';
import { EnvironmentParameter } from '../shared/environment-parameter.js';

export const LintQuery = Type.Object(
  { environment: Type.Optional(EnvironmentParameter) },
  { additionalProperties: false },
);
export const checkLintQuery = compile(LintQuery);

const NamedRule = Type.Object(
  { id: Type.String(), name: Type.String(), ruleType: RuleTypeSchema, status: Status },
  { additionalProperties: false },
);

const count = (what: string) => Type.Integer({ minimum: 0, description: `Findings of severity ${what}.` });

export const LintAnswer = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Object(
      {
        findings: Type.Array(Finding, { description: 'Errors first, then warnings, then information.' }),
        rules: Type.Array(NamedRule, { description: 'The rules the findings name, in list order.' }),
        counts: Type.Object(
          { error: count('error'), warning: count('warning'), info: count('info') },
          { additionalProperties: false },
        ),
        complete: Type.Boolean({
          description:
            'false when the workspace has too many rules for every rule to be compared with every other: ' +
            'shadowed and redirect_loop then cover the rules earliest in the list only.',
        }),
      },
      { additionalProperties: false },
    ),
  },
  { $id: 'LintAnswer', additionalProperties: false },
);
export type LintData = Static<typeof LintAnswer>['data'];
