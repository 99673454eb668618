// A rule in the browser: the Chrome declarativeNetRequest rule (MV3) the compiler writes, and the report
// on each Rulekeeper rule (compiled, partial, not compiled, and why). Declared once for the engine's
// compiler, the API document (GET /v1/browser-rules), the CLI and the extension.
import { type Static, Type } from '@sinclair/typebox';

/** Chrome's resource types; a rule without a `resourceType` filter lists them all (see the compiler). */
export const DNR_RESOURCE_TYPES = [
  'main_frame',
  'sub_frame',
  'stylesheet',
  'script',
  'image',
  'font',
  'object',
  'xmlhttprequest',
  'ping',
  'csp_report',
  'media',
  'websocket',
  'webtransport',
  'webbundle',
  'other',
] as const;

const strings = (description: string) => Type.Array(Type.String(), { minItems: 1, description });

const HeaderInfo = Type.Object(
  {
    header: Type.String(),
    operation: Type.Union([Type.Literal('append'), Type.Literal('set'), Type.Literal('remove')]),
    value: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

const QueryKeyValue = Type.Object(
  { key: Type.String(), value: Type.String() },
  { additionalProperties: false },
);

const Redirect = Type.Object(
  {
    url: Type.Optional(Type.String({ description: 'The new URL, when it does not depend on the request.' })),
    regexSubstitution: Type.Optional(
      Type.String({ description: 'The match of regexFilter is replaced by this; \\1 … \\9 are its groups.' }),
    ),
    transform: Type.Optional(
      Type.Object(
        {
          query: Type.Optional(Type.String({ description: 'The whole new query: "" removes it.' })),
          queryTransform: Type.Optional(
            Type.Object(
              {
                removeParams: Type.Optional(Type.Array(Type.String())),
                addOrReplaceParams: Type.Optional(Type.Array(QueryKeyValue)),
              },
              { additionalProperties: false },
            ),
          ),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

export const DnrRule = Type.Object(
  {
    id: Type.Integer({
      minimum: 1,
      description: 'Unique in the answer; the report says which rule it came from.',
    }),
    priority: Type.Integer({
      minimum: 1,
      description: 'Derived from list order (earlier is higher); Cancel rules are above all others.',
    }),
    action: Type.Object(
      {
        type: Type.Union([Type.Literal('block'), Type.Literal('redirect'), Type.Literal('modifyHeaders')]),
        redirect: Type.Optional(Redirect),
        requestHeaders: Type.Optional(Type.Array(HeaderInfo)),
        responseHeaders: Type.Optional(Type.Array(HeaderInfo)),
      },
      { additionalProperties: false },
    ),
    condition: Type.Object(
      {
        urlFilter: Type.Optional(Type.String()),
        regexFilter: Type.Optional(
          Type.String({ description: "RE2 syntax, within Chrome's 2 KB program budget." }),
        ),
        isUrlFilterCaseSensitive: Type.Optional(Type.Boolean()),
        resourceTypes: Type.Optional(Type.Array(Type.String())),
        requestMethods: Type.Optional(strings('Lower-case HTTP methods.')),
        initiatorDomains: Type.Optional(strings('The page domains, and their subdomains.')),
      },
      { additionalProperties: false },
    ),
  },
  {
    $id: 'BrowserRule',
    additionalProperties: false,
    description: 'A chrome.declarativeNetRequest.Rule, ready for updateDynamicRules({addRules}).',
  },
);
export type DnrRule = Static<typeof DnrRule>;
export type DnrCondition = DnrRule['condition'];
export type DnrAction = DnrRule['action'];
export type DnrHeader = Static<typeof HeaderInfo>;

export const COMPILE_STATUSES = ['compiled', 'partial', 'not_compiled'] as const;
export type CompileStatus = (typeof COMPILE_STATUSES)[number];

const Status = Type.Union(
  COMPILE_STATUSES.map((status) => Type.Literal(status)),
  {
    description:
      '`compiled`: the browser does what the engine does; `partial`: some pairs or effects cannot be ' +
      'expressed, or beside another rule it can act otherwise in the browser, where every rule sees the URL ' +
      'as requested and one URL change applies per request (the reasons say which); `not_compiled`: ' +
      'nothing of it is in `rules`.',
  },
);

export const BrowserPairReport = Type.Object(
  {
    index: Type.Integer({ minimum: 0, description: "The pair's place in the rule." }),
    pairId: Type.Optional(Type.String()),
    status: Status,
    browserRuleIds: Type.Array(Type.Integer({ minimum: 1 }), {
      description: 'The ids of the browser rules written for this pair (none when it never matches).',
    }),
    reasons: Type.Array(Type.String(), { description: 'What could not be expressed, and why.' }),
  },
  { additionalProperties: false },
);
export type BrowserPairReport = Static<typeof BrowserPairReport>;

export const BrowserRuleReport = Type.Object(
  {
    ruleId: Type.String(),
    status: Status,
    pairs: Type.Optional(
      Type.Array(BrowserPairReport, { description: 'Absent when no pair could be tried.' }),
    ),
    reasons: Type.Array(Type.String(), {
      description:
        'Why the rule, as a whole, is partial or not compiled (its pairs say more), and the rules it can ' +
        'act otherwise beside in the browser, named.',
    }),
  },
  { $id: 'BrowserRuleReport', additionalProperties: false },
);
export type BrowserRuleReport = Static<typeof BrowserRuleReport>;
