// Schema of GET /v1/browser-rules: Chrome's rules and the report on each Rulekeeper rule.
import { Type } from '@sinclair/typebox';
import { BrowserRuleReport, DnrRule } from '../../model/browser-rule.js';
import { compile } from '../../validation.js';
import { EnvironmentParameter } from '../shared/environment-parameter.js';

export const BrowserRulesQuery = Type.Object(
  { environment: Type.Optional(EnvironmentParameter) },
  { additionalProperties: false },
);
export const checkBrowserRulesQuery = compile(BrowserRulesQuery);

export const BrowserRulesAnswer = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Object(
      {
        rules: Type.Array(DnrRule, {
          description:
            "Ready for chrome.declarativeNetRequest.updateDynamicRules({addRules}); within Chrome's limits " +
            '(30,000 dynamic rules, 5,000 redirect and header rules, 1,000 with a regexFilter).',
        }),
        report: Type.Array(BrowserRuleReport, {
          description:
            'One entry per active rule, in list order: compiled, partial or not_compiled, and why.',
        }),
      },
      { additionalProperties: false },
    ),
  },
  { $id: 'BrowserRulesAnswer', additionalProperties: false },
);
