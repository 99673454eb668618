// Schemas of rules: what a client may write, what it reads back, and the list query.
import { type Static, Type } from '@sinclair/typebox';
import { compile } from '../../validation.js';
import { PageQuery, Status, Timestamp } from '../shared/schemas.js';
import { PairSchema, RULE_TYPES, ruleTypes } from './rule-types/index.js';

export const MAX_PAIRS = 100;

export const RuleTypeSchema = Type.Union(
  RULE_TYPES.map((name) => Type.Literal(name)),
  { description: 'The rule type; cannot change after creation.' },
);

const writable = {
  name: Type.String({
    description: '1 to 256 characters after trimming.',
    examples: ['Send checkout to staging'],
  }),
  description: Type.String({ maxLength: 4096, description: 'Up to 4096 characters; defaults to "".' }),
  status: Type.Union(Status.anyOf, { description: '`Active` or `Inactive` (the default).' }),
  ruleType: RuleTypeSchema,
  groupId: Type.String({
    maxLength: 256,
    description: 'Id of a group of the same workspace; "" (the default) for ungrouped.',
    examples: ['Group_k3v9x', ''],
  }),
};

/** The body as documented, pairs described per rule type. */
export const RuleCreate = Type.Object(
  {
    name: writable.name,
    description: Type.Optional(writable.description),
    status: Type.Optional(writable.status),
    ruleType: writable.ruleType,
    groupId: Type.Optional(writable.groupId),
    pairs: Type.Array(PairSchema, {
      minItems: 1,
      maxItems: MAX_PAIRS,
      description: 'Each pair matches its type.',
    }),
  },
  {
    additionalProperties: false,
    // One complete body per rule type, for the OpenAPI document.
    examples: RULE_TYPES.map((ruleType) => ({
      name: `${ruleType} example`,
      ruleType,
      status: 'Active',
      pairs: [ruleTypes[ruleType].examples.valid[0]?.pair],
    })),
  },
);
export const RuleUpdate = Type.Partial(RuleCreate, { additionalProperties: false });

/**
 * The same bodies as checked at the door: pairs only need to be an array here, since they are
 * normalised and checked against their rule type's schema afterwards (a different error).
 */
const RuleCreateChecked = Type.Object(
  { ...RuleCreate.properties, pairs: Type.Array(Type.Unknown()) },
  { additionalProperties: false },
);
const RuleUpdateChecked = Type.Partial(RuleCreateChecked, { additionalProperties: false });
export const checkRuleCreate = compile(RuleCreateChecked);
export const checkRuleUpdate = compile(RuleUpdateChecked);
export type RuleWrite = Static<typeof RuleUpdateChecked>;

/** Fields a client may send back from what it read (ours and Requestly's own); they are ignored. */
export const RULE_IGNORED_FIELDS = new Set([
  'id',
  'objectType',
  'createdBy',
  'creationDate',
  'lastModifiedBy',
  'modificationDate',
  'currentOwner',
  'currentOwnerId',
  'isSample',
  'isFavourite',
  'isReadOnly',
  'schemaVersion',
  'extensionRules',
  'preserveCookie',
  'version',
  'removeCSPHeader',
  'lastModified',
  'ruleIndexForWhichPickerOpened',
]);

export const Rule = Type.Object(
  {
    id: Type.String({ description: '`<RuleType>_` and 5 characters.', examples: ['Redirect_a1b2c'] }),
    name: Type.String(),
    description: Type.String(),
    status: Status,
    ruleType: RuleTypeSchema,
    groupId: Type.String({ description: '"" when ungrouped.' }),
    pairs: Type.Array(PairSchema),
    createdBy: Type.String({ description: 'User id of the key that created the rule.' }),
    creationDate: Timestamp,
    lastModifiedBy: Type.String({ description: 'User id of the key that last changed the rule.' }),
    modificationDate: Timestamp,
    currentOwner: Type.String({ description: "Deprecated. The workspace owner's user id." }),
    objectType: Type.Literal('rule'),
  },
  { $id: 'Rule' },
);
export type Rule = Static<typeof Rule>;

export const RuleParams = Type.Object({ ruleId: Type.String({ examples: ['Redirect_a1b2c'] }) });

export const RuleListQuery = Type.Object(
  {
    ...PageQuery,
    status: Type.Optional(Status),
    ruleType: Type.Optional(RuleTypeSchema),
    groupId: Type.Optional(
      Type.String({ maxLength: 256, description: 'Rules of this group; "" for ungrouped.' }),
    ),
    search: Type.Optional(Type.String({ maxLength: 256, description: 'Case-insensitive part of the name.' })),
  },
  { additionalProperties: false },
);
export const checkRuleListQuery = compile(RuleListQuery);
