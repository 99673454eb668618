// What the request schemas of the OpenAPI document cannot say, in one place: the document shows it
// under its description, and the document fuzzer (test/api/openapi-fuzz.test.ts) keeps to it.
// Everything else the service checks, the schemas say.

export const SCHEMAS_CANNOT_SAY: string[] = [
  'Lengths: the service counts UTF-16 code units, JSON Schema counts characters: text with characters ' +
    'outside the Basic Multilingual Plane (emoji) reaches `maxLength` sooner than a schema counts.',
  "Names (rules, groups, keys) are trimmed of white space first: `maxLength` (256; a key's 100) holds for " +
    'the trimmed name, so a name padded with white space may be longer.',
  "A new key's `expiresAt` must be in the future, and no later than the expiry of the key that makes it; " +
    "its scope within the caller's (the smaller of its key's scope and its role): beyond either, 403.",
  'No text (a value or a key, anywhere in a body) may hold a NUL character or a lone UTF-16 surrogate: ' +
    'JSON can carry them, no database stores them (400). Free text in a query says so in its pattern.',
  'Bodies: at most `MAX_BODY_BYTES` (default 1 MiB; an import `MAX_IMPORT_BYTES`, default 50 MiB), nested ' +
    'at most 64 levels deep; a query names each parameter at most once.',
  'Rule bodies also take the input variants Requestly clients send (the rule schemas say which), stored ' +
    'in the canonical form the schemas show.',
  'Pairs: a `Matches` value (and a Replace `from` written `/pattern/flags`) must compile as an RE2 regular ' +
    'expression; pair ids are unique in a rule; a Headers pair holds 1 to 100 header changes in all, and ' +
    'a `value` when it adds or modifies; a QueryParam modification needs `param` unless it removes all, ' +
    "and `value` when it adds; `delay` is at most the instance's `MAX_DELAY_MS` (default 60000; the " +
    "schema's maximum is the largest any instance takes).",
  'Variables (decisions §20): a Headers `header` holds braces only as `{{NAME}}` references (the pattern ' +
    'lets any brace through); an `environment` (a trace body field, `?environment=` of browser rules, the ' +
    "lint and exports) must be one of the workspace's: else 404, and in a trace body 400 at `/environment`.",
  "Ids that are of the documented form but name nothing are 404; another workspace's are 403. A rule's " +
    "`groupId` must name a group of the workspace (404 or 403), as must a trace's `ruleIds`.",
  'Trace: `request.url` is parsed as a browser parses it (WHATWG URL: surrounding spaces and control ' +
    'characters dropped, tabs and newlines removed) and must then be absolute with scheme http, https, ' +
    'ws or wss; `pageUrl` must parse as an absolute URL; the inline `rules` hold at most 1,000 pairs in all.',
  'Import and trace: rules of older Requestly formats (import records, inline trace rules) are converted ' +
    '(the report or the warnings say how); with `onError=skip` records that are not valid are reported as ' +
    'failed rather than refusing the file.',
  'Preconditions and replays depend on state: `If-Match` naming an older version is 412; an ' +
    '`Idempotency-Key` used in the last 24 hours with another request is 409; a restored version must ' +
    'still be kept (404), and its id free (409).',
  "A webhook's `url` must be an absolute http or https URL without user, password or fragment, whose " +
    'host resolves, when it is made and at every send, to public addresses only (no loopback, private, ' +
    'link-local, unique-local, multicast or unspecified address, nor an IPv4-mapped one of them) unless the ' +
    'operator sets `WEBHOOK_ALLOW_PRIVATE=true`; a workspace holds at most 20 webhooks (409).',
  "Variables: each key of `values` names an environment, which must be one of the workspace's (400 at " +
    '`/values/<name>`), ' +
    'at most `MAX_ENVIRONMENTS` of them (default 20); a value is at most `MAX_VARIABLE_VALUE_CHARS` characters ' +
    "(default 8192: the schema's maximum); `null` keeps a value set there already (400 where none is, and for " +
    'a secret made plain, which needs its `values` given again). A workspace holds at most `MAX_VARIABLES` ' +
    'variables (default 500) and `MAX_ENVIRONMENTS` environments (409); `default` and an environment a ' +
    "working key is bound to are not deleted (409). A key's `environment` must be one of the workspace's (400).",
  '`X-Request-Id` takes any value; only one of the form `^[A-Za-z0-9._:-]{1,128}$` is echoed.',
];

/** The list, as a section of the document's description. */
export const schemasCannotSay = (): string =>
  `\n\n## What the schemas cannot say\n\n${SCHEMAS_CANNOT_SAY.map((item) => `- ${item}`).join('\n')}`;
