// Schemas of import and export: the import query and its report, the exported file.
import { type Static, Type } from '@sinclair/typebox';
import { Group, GroupCreateBody } from '../../model/group.js';
import { Rule, RuleCreate } from '../../model/rule.js';
import { compile } from '../../validation.js';
import { EnvironmentParameter } from '../shared/environment-parameter.js';

/** Records an import takes at most: beyond that, split the file. */
export const MAX_IMPORT_RECORDS = 100_000;

export const ImportQuery = Type.Object(
  {
    dryRun: Type.Optional(
      Type.Union([Type.Literal('true'), Type.Literal('false')], {
        description: '`true`: check and report only; nothing is written.',
      }),
    ),
    mode: Type.Optional(
      Type.Union([Type.Literal('copy'), Type.Literal('overwrite')], {
        description:
          '`copy` (default): every record gets a new id. `overwrite`: a record whose id names an object ' +
          'of this workspace replaces it; other records keep their id when it is of our form and free ' +
          '(never had by another workspace; otherwise a new id, said in the warnings).',
      }),
    ),
    onError: Type.Optional(
      Type.Union([Type.Literal('abort'), Type.Literal('skip')], {
        description:
          '`abort` (default): any failed record and nothing is written. `skip`: valid records are.',
      }),
    ),
  },
  { additionalProperties: false },
);
export const checkImportQuery = compile(ImportQuery);

export const ExportQuery = Type.Object(
  {
    format: Type.Optional(
      Type.Union([Type.Literal('rulekeeper'), Type.Literal('requestly')], {
        description:
          '`rulekeeper` (default): groups and rules as GET returns them. `requestly`: the shapes ' +
          "Requestly's app stores (Headers modifications as one object, Response and Request bodies " +
          'nested under `response`/`request`, `pageUrl` filters), for Requestly to take back.',
      }),
    ),
    environment: Type.Optional(
      Type.String({
        ...EnvironmentParameter,
        description:
          'The environment whose variables `{{NAME}}` in the rules take. Requestly has no variables, so ' +
          "`format=requestly` always resolves them (in this environment, else the key's, else `default`); " +
          '`format=rulekeeper` keeps `{{NAME}}` as written unless this is given. Secret variables are never ' +
          'written into a file: their references stay as written, as does a rule its variables would make ' +
          'invalid. The environment used is named in the `Rulekeeper-Environment` header; one the workspace ' +
          'lacks is 404 Environment not found.',
      }),
    ),
  },
  { additionalProperties: false },
);
export const checkExportQuery = compile(ExportQuery);

const Detail = Type.Object({ path: Type.String(), message: Type.String() }, { additionalProperties: false });

export const ImportItem = Type.Object(
  {
    index: Type.Integer({
      description: 'Position of the record in the file, from 0 (as in the pointers of `details`: `/3/...`).',
    }),
    name: Type.Union([Type.String(), Type.Null()], {
      description: "The record's name in the file; null when it has none.",
    }),
    objectType: Type.Union([Type.Literal('rule'), Type.Literal('group'), Type.Null()], {
      description: 'null when the record is neither.',
    }),
    sourceId: Type.Union([Type.String(), Type.Null()], { description: 'The id the record had in the file.' }),
    id: Type.Union([Type.String(), Type.Null()], {
      description:
        'Its id here; null when it failed. In a dry run, an id kept or replaced is the one it will have; a new id ' +
        'is only an example of its form (a dry run reserves none: the import draws its own).',
    }),
    outcome: Type.Union([Type.Literal('created'), Type.Literal('updated'), Type.Literal('failed')]),
    warnings: Type.Array(Type.String(), {
      description:
        'What was converted or changed on the way in; for a rule written, also what the rule lint finds ' +
        'about it after the import, one line per finding (`code (severity): message Hint: hint`; GET /v1/lint has them whole).',
    }),
    message: Type.Optional(Type.String({ description: 'Why it failed: the error POST would answer.' })),
    details: Type.Optional(
      Type.Array(Detail, {
        description: 'Where it failed: JSON Pointers into the file (`/3/pairs/0/source`).',
      }),
    ),
  },
  { additionalProperties: false },
);
export type ImportItem = Static<typeof ImportItem>;

export const ImportReport = Type.Object(
  {
    success: Type.Literal(true),
    data: Type.Object(
      {
        dryRun: Type.Boolean(),
        created: Type.Integer(),
        updated: Type.Integer(),
        failed: Type.Integer(),
        items: Type.Array(ImportItem),
      },
      { additionalProperties: false },
    ),
  },
  { $id: 'ImportReport', additionalProperties: false },
);
export type ImportResult = Static<typeof ImportReport>['data'];

/**
 * A record of an import as the document states it: a rule as POST /v1/rules takes it (`objectType`
 * "rule" or left out), or a group as POST /v1/groups takes it (`objectType` "group"). Older Requestly
 * formats, converted on the way in, are said in words (plugins/openapi-limits.ts).
 */
const ImportRecord = Type.Unsafe<unknown>({
  anyOf: [
    {
      $id: 'ImportRuleRecord',
      description: 'A rule record: a rule as POST /v1/rules takes it.',
      allOf: [RuleCreate, { type: 'object', properties: { objectType: { const: 'rule' } } }],
    },
    {
      $id: 'ImportGroupRecord',
      description: 'A group record: a group as POST /v1/groups takes it, with `objectType` "group".',
      allOf: [
        GroupCreateBody,
        { type: 'object', required: ['objectType'], properties: { objectType: { const: 'group' } } },
      ],
    },
  ],
});

/**
 * The body of an import, for the OpenAPI document. With `onError=skip`, records that are not valid are
 * reported as failed instead of refusing the file; the service reads each record alone either way.
 */
export const ImportBody = Type.Array(ImportRecord, {
  description: 'A Requestly export: rule and group records, at most 100,000.',
  maxItems: MAX_IMPORT_RECORDS,
});

export const ExportFile = Type.Union(
  [
    Type.Array(Type.Union([Group, Rule]), {
      description: "The workspace's groups, then its rules, as GET returns them (`format=rulekeeper`).",
    }),
    Type.Array(Type.Object({}, { additionalProperties: true }), {
      description: "The same records in the shapes Requestly's app stores (`format=requestly`).",
    }),
  ],
  { description: "The workspace's groups, then its rules: a file this service and Requestly import." },
);
