// A rule: what a client may write, what it reads back, and the mapper from a stored row to what it reads.
import { type Static, type TObject, type TSchema, Type } from '@sinclair/typebox';
import { compile } from '../validation.js';
import { acceptingIgnored, DocumentedName, ignoredFields, Status, Timestamp } from './common.js';
import { GROUP_ID_PATTERN } from './group.js';
import type { Principal } from './principal.js';
import { REQUESTLY_RULE_IGNORED } from './requestly-fields.js';
import {
  answeredPairSchemas,
  PairSchema,
  pairSchemas,
  RULE_TYPES,
  type RuleType,
  ruleTypes,
} from './rule-types/index.js';

export const MAX_PAIRS = 100;

/**
 * A union discriminated by `ruleType`, as OpenAPI says it: `oneOf` the named schema of each type (an
 * `$id`, so each becomes a component) and the mapping from each type to its schema. For the document
 * only (TypeBox's checker does not read `oneOf`): bodies are checked by rules-input.ts.
 */
function discriminated(id: string, description: string, variant: (type: RuleType) => TSchema) {
  const variants = RULE_TYPES.map(variant);
  return Type.Unsafe<unknown>({
    $id: id,
    description,
    oneOf: variants,
    discriminator: {
      propertyName: 'ruleType',
      mapping: Object.fromEntries(
        RULE_TYPES.map((type, index) => [type, `#/components/schemas/${variants[index]?.$id}`]),
      ),
    },
  });
}

export const RuleTypeSchema = Type.Union(
  RULE_TYPES.map((name) => Type.Literal(name)),
  { description: 'The rule type; cannot change after creation.' },
);

/** What `removeCSPHeader` means, for the document. */
const REMOVE_CSP_HEADER =
  "Script rules (Requestly's field of the same name): true, the default, removes the Content-Security-Policy " +
  'header of the documents the rule acts on, so that a policy forbidding inline or foreign scripts does not ' +
  'stop its scripts (in the proxy, the Playwright fixture and the browser extension); false leaves it. ' +
  'Other rule types ignore it.';

/**
 * The fields a body writes, declared once, in the order their errors are reported; `ruleType` and
 * `pairs` as each use needs them (one type's, any type's, or only an array for the first check).
 */
const writeFields = <R extends TSchema, P extends TSchema>(ruleType: R, pairs: P, checked = false) => ({
  // The check trims the name and counts it itself (rules-input.ts); the document says what it can.
  name: checked
    ? Type.String()
    : DocumentedName('1 to 256 characters after trimming; not blank.', ['Send checkout to staging']),
  description: Type.Optional(
    Type.String({ maxLength: 4096, description: 'Up to 4096 characters; defaults to "".' }),
  ),
  status: Type.Optional(Type.Union(Status.anyOf, { description: '`Active` or `Inactive` (the default).' })),
  isFavourite: Type.Optional(
    Type.Boolean({ description: "Pinned (Requestly's favourite); defaults to false." }),
  ),
  ruleType,
  groupId: Type.Optional(
    Type.String({
      maxLength: 256,
      description: 'Id of a group of the same workspace; "" (the default) for ungrouped.',
      examples: ['Group_k3v9x', ''],
    }),
  ),
  pairs,
  removeCSPHeader: Type.Optional(Type.Boolean({ description: REMOVE_CSP_HEADER })),
});

const pairsOf = (type: RuleType) =>
  Type.Array(pairSchemas[type], {
    minItems: 1,
    maxItems: MAX_PAIRS,
    description: `1 to ${MAX_PAIRS} pairs, each a ${type}PairInput.`,
  });

/**
 * Read-only fields a rule body may carry (so a client may send back what it read) and the fields of
 * Requestly's rule records that Rulekeeper does not store (requestly-fields.ts says which and why); ignored.
 */
export const RULE_IGNORED_FIELDS = new Set([
  'id',
  'objectType',
  'createdBy',
  'creationDate',
  'lastModifiedBy',
  'modificationDate',
  'currentOwner',
  'currentOwnerId',
  ...REQUESTLY_RULE_IGNORED,
  'ruleIndexForWhichPickerOpened',
]);

const RuleIgnoredFields = ignoredFields('RuleIgnoredFields', RULE_IGNORED_FIELDS);
const acceptingIgnoredOfRules = (body: TObject) => acceptingIgnored(body, RuleIgnoredFields);

/** A complete body of the type, for the OpenAPI document. */
const exampleBody = (ruleType: RuleType) => ({
  name: `${ruleType} example`,
  ruleType,
  status: 'Active',
  pairs: [ruleTypes[ruleType].examples.valid[0]?.pair],
});

/** The body of POST /v1/rules for one rule type. */
const createOf = (type: RuleType) =>
  acceptingIgnoredOfRules(
    Type.Object(writeFields(Type.Literal(type), pairsOf(type)), {
      $id: `${type}RuleCreate`,
      additionalProperties: false,
      examples: [exampleBody(type)],
    }),
  );

/** The body of PUT /v1/rules/:ruleId naming the type (which must be the stored one). */
const updateOf = (type: RuleType) =>
  acceptingIgnoredOfRules(
    Type.Object(
      {
        ...Type.Partial(Type.Object(writeFields(Type.Literal(type), pairsOf(type)))).properties,
        ruleType: Type.Literal(type, { description: 'Must be the stored type.' }),
      },
      { $id: `${type}RuleUpdate`, additionalProperties: false },
    ),
  );

/**
 * The schemas describe the canonical body; the service also takes the variants real Requestly clients
 * send and stores them canonical. Said in words: as schemas they would double every pair.
 */
const VARIANTS =
  ' Also accepted, and stored in the canonical form shown: `source.key` in any letter case; `delay` as a ' +
  'string of digits; a Response or Request pair\'s fields nested in `response` or `request`; `statusCode: ""`; ' +
  'Headers `modifications` as one object; `filters` as one object, `null`, or holding empty objects or nulls; ' +
  "a filter's `pageUrl` for `URL`; a Redirect pair without `destinationType` (a URL); and, ignored, " +
  "a Replace pair's `status`, a Delay pair's `delayType` and `source.requestType`.";

export const RuleCreate = discriminated(
  'RuleCreate',
  `A new rule: its pairs are of its ruleType.${VARIANTS}`,
  createOf,
);

/**
 * A PUT that leaves `ruleType` out: its pairs, if any, are checked against the stored type. Its
 * `ruleType` is the schema `false` (absent), which client generators read as `never`, so that a body
 * naming a type is held to that type's variant.
 */
const keepingType = Type.Partial(
  Type.Object(
    writeFields(
      Type.Never(),
      Type.Array(PairSchema, {
        minItems: 1,
        maxItems: MAX_PAIRS,
        description: "Pairs of the stored rule's type.",
      }),
    ),
  ),
  { $id: 'RuleUpdateKeepingType', additionalProperties: false, examples: [{ status: 'Inactive' }] },
);
const RuleUpdateKeepingType = acceptingIgnoredOfRules({
  ...keepingType,
  properties: { ...keepingType.properties, ruleType: false },
} as unknown as typeof keepingType);

export const RuleUpdate = Type.Unsafe<Static<typeof RuleUpdateChecked>>({
  $id: 'RuleUpdate',
  description:
    'Fields left out keep their values; pairs, when given, replace all pairs. With `ruleType` (which must ' +
    `be the stored type) the pairs are of that type; without it, of the stored type.${VARIANTS}`,
  oneOf: [
    discriminated('RuleUpdateWithType', 'A PUT that names the rule type.', updateOf),
    RuleUpdateKeepingType,
  ],
});

/**
 * The same bodies as checked at the door: pairs only need to be an array here, since they are
 * normalised and checked against their rule type's schema afterwards (a different error).
 */
const RuleCreateChecked = Type.Object(writeFields(RuleTypeSchema, Type.Array(Type.Unknown()), true), {
  additionalProperties: false,
});
const RuleUpdateChecked = Type.Partial(RuleCreateChecked, { additionalProperties: false });
export const checkRuleCreate = compile(RuleCreateChecked);
export const checkRuleUpdate = compile(RuleUpdateChecked);
export type RuleWrite = Static<typeof RuleUpdateChecked>;

/**
 * The form of a rule id of `type`: generated ones have 5 characters of [0-9a-z]; an import in overwrite
 * mode keeps a record's own id of this form.
 */
export const ruleIdPattern = (type: string) => `^${type}_[A-Za-z0-9]{1,32}$`;

/** The form of every rule id, of any type: an id of another form names no rule (404). */
export const RULE_ID_PATTERN = ruleIdPattern(`(?:${RULE_TYPES.join('|')})`);

/** What every rule answers, whatever its type; `ruleType` and `pairs` are given per type. */
const ruleFields = <R extends TSchema, P extends TSchema>(ruleType: R, pairs: P, type?: RuleType) => ({
  id: Type.String({
    pattern: ruleIdPattern(type ?? '[A-Za-z]+'),
    description: '`<RuleType>_` and 5 characters (or, imported, 1 to 32 letters or digits).',
    examples: [`${type ?? 'Redirect'}_a1b2c`],
  }),
  name: Type.String(),
  description: Type.String(),
  status: Status,
  isFavourite: Type.Boolean({ description: "Pinned (Requestly's favourite)." }),
  ruleType,
  groupId: Type.String({
    // Two alternatives rather than an optional group: generators from the document stay fast.
    pattern: `^$|${GROUP_ID_PATTERN.source}`,
    description: '"" when ungrouped.',
  }),
  pairs,
  // A Script rule's own field: declared by Requestly on its Script records only.
  ...(type === 'Script' ? { removeCSPHeader: Type.Boolean({ description: REMOVE_CSP_HEADER }) } : {}),
  createdBy: Type.String({ description: 'User id of the key that created the rule.' }),
  creationDate: Timestamp,
  lastModifiedBy: Type.String({ description: 'User id of the key that last changed the rule.' }),
  modificationDate: Timestamp,
  currentOwner: Type.String({ description: "Deprecated. The workspace owner's user id." }),
  objectType: Type.Literal('rule'),
});

/** A rule as the services build it (its type and pairs not tied together: the stored rows are trusted). */
const RuleShape = Type.Object({
  ...ruleFields(RuleTypeSchema, Type.Array(PairSchema)),
  removeCSPHeader: Type.Optional(Type.Boolean()),
});
export type Rule = Static<typeof RuleShape>;

/**
 * The fields of a rule as answered, in their order: the SQL that builds a rule's JSON and the tests
 * take them from here, so that a field is added in one place. A Script rule also has `removeCSPHeader`,
 * after `pairs` (SCRIPT_RULE_FIELDS).
 */
export const RULE_FIELDS = Object.keys(ruleFields(RuleTypeSchema, Type.Array(PairSchema))) as Exclude<
  keyof Rule,
  'removeCSPHeader'
>[];
/** The fields of a Script rule as answered, in their order. */
export const SCRIPT_RULE_FIELDS = Object.keys(
  ruleFields(Type.Literal('Script'), Type.Array(PairSchema), 'Script'),
) as (keyof Rule)[];

/** The fields of a rule of `type` as answered, in their order. */
export const ruleFieldsOf = (type: string): readonly (keyof Rule)[] =>
  type === 'Script' ? SCRIPT_RULE_FIELDS : RULE_FIELDS;

/** A rule of `type` as answered: its pairs of that type. */
const answeredRule = (type: RuleType) =>
  Type.Object(ruleFields(Type.Literal(type), Type.Array(answeredPairSchemas[type]), type), {
    $id: `${type}Rule`,
    description: `A ${type} rule.`,
    additionalProperties: false,
  });

/** A rule of each type as answered. */
export const RuleOfType = Object.fromEntries(RULE_TYPES.map((type) => [type, answeredRule(type)])) as Record<
  RuleType,
  ReturnType<typeof answeredRule>
>;

/** A rule as answered: one named schema per type, whose pairs are of that type. */
export const Rule = discriminated(
  'Rule',
  'A rule; its pairs are of its ruleType.',
  (type) => RuleOfType[type],
);

/** A rule as stored: the columns the mapper reads (a database row has them). */
export interface StoredRule {
  id: string;
  name: string;
  description: string;
  status: string;
  rule_type: string;
  group_id: string | null;
  pairs: string;
  is_favourite: number;
  remove_csp_header: number | null;
  created_by: string;
  creation_date: number;
  last_modified_by: string;
  modification_date: number;
}

/**
 * A Script rule's `removeCSPHeader` as stored: true unless it says 0 (null: written before the field,
 * Requestly's default); null for the other types.
 */
export const removesCsp = (row: Pick<StoredRule, 'rule_type' | 'remove_csp_header'>): boolean | undefined =>
  row.rule_type === 'Script' ? row.remove_csp_header !== 0 : undefined;

/**
 * The `remove_csp_header` column of a write: what the body says (true by default, as in Requestly),
 * else what was stored; null for types other than Script.
 */
export function cspColumn(
  ruleType: string,
  sent: boolean | undefined,
  stored?: number | null,
): number | null {
  if (ruleType !== 'Script') return null;
  if (sent !== undefined) return sent ? 1 : 0;
  return stored === 0 ? 0 : 1;
}

/** A stored rule as answered; `pairs` when already parsed. */
export function toRule(row: StoredRule, principal: Principal, pairs?: Record<string, unknown>[]): Rule {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    status: row.status as Rule['status'],
    isFavourite: row.is_favourite === 1,
    ruleType: row.rule_type as RuleType,
    groupId: row.group_id ?? '',
    pairs: (pairs ?? JSON.parse(row.pairs)) as Rule['pairs'],
    ...(row.rule_type === 'Script' ? { removeCSPHeader: removesCsp(row) } : {}),
    createdBy: row.created_by,
    creationDate: row.creation_date,
    lastModifiedBy: row.last_modified_by,
    modificationDate: row.modification_date,
    currentOwner: principal.ownerUserId,
    objectType: 'rule',
  };
}
