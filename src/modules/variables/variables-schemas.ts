// Shapes of /v1/environments and /v1/variables (decisions §20): an environment, a variable as read
// (a secret's values never in it), as written, its versions, and the values runtimes read.
import { type Static, Type } from '@sinclair/typebox';
import { pageQuery } from '../../http/schemas.js';
import { Timestamp } from '../../model/common.js';
import { ENVIRONMENT_NAME_PATTERN, VARIABLE_NAME_PATTERN } from '../../model/environment-names.js';
import { compile } from '../../validation.js';

/** What a value may hold: no control character but the tab (nor NUL, which no database stores). */
export const VALUE_PATTERN = '^[^\\u0000-\\u0008\\u000a-\\u001f\\u007f]*$';

/** Characters of a variable's description. */
export const MAX_DESCRIPTION_CHARS = 1024;

const environmentName = (description: string) =>
  Type.String({ pattern: ENVIRONMENT_NAME_PATTERN.source, description, examples: ['staging'] });
const variableName = (description: string) =>
  Type.String({ pattern: VARIABLE_NAME_PATTERN.source, description, examples: ['API_HOST'] });

export const Environment = Type.Object(
  {
    name: environmentName('Unique in the workspace, compared exactly (case-sensitive).'),
    creationDate: Timestamp,
  },
  {
    $id: 'Environment',
    additionalProperties: false,
    description: 'Where rules point: `default` (every workspace has it), `staging`, `production`…',
  },
);
export type Environment = Static<typeof Environment>;

export const EnvironmentCreate = Type.Object(
  {
    name: environmentName(
      'A letter or digit, then up to 63 letters, digits, `_`, `.` or `-`; unique in the workspace.',
    ),
  },
  { $id: 'EnvironmentCreate', additionalProperties: false, examples: [{ name: 'staging' }] },
);
export const checkEnvironmentCreate = compile(
  Type.Object({ name: Type.String() }, { additionalProperties: false }),
);

export const EnvironmentParams = Type.Object({
  name: Type.String({
    pattern: ENVIRONMENT_NAME_PATTERN.source,
    description: 'The environment name, as GET /v1/environments lists it; any other is not found.',
    examples: ['staging'],
  }),
});

const listQuery = (checked: boolean) => Type.Object(pageQuery(checked), { additionalProperties: false });
export const EnvironmentListQuery = listQuery(false);
export const VariableListQuery = listQuery(false);
export const checkListQuery = compile(listQuery(true));

export const Variable = Type.Object(
  {
    name: variableName('Unique in the workspace; a rule names it as `{{NAME}}`.'),
    description: Type.String({ maxLength: MAX_DESCRIPTION_CHARS }),
    secret: Type.Boolean({
      description:
        'A secret is written but never read back: its `values` say only where a value is set (null).',
    }),
    values: Type.Record(
      Type.String({ pattern: ENVIRONMENT_NAME_PATTERN.source }),
      Type.Union([Type.String(), Type.Null()]),
      {
        additionalProperties: false,
        description:
          'The value in each environment that has one, by environment name; null for each value of a secret.',
        examples: [{ default: 'localhost:3000', staging: 'staging.example.com' }],
      },
    ),
    version: Type.Integer({ minimum: 1, description: 'One more with each change of the variable.' }),
    creationDate: Timestamp,
    modificationDate: Timestamp,
  },
  { $id: 'Variable', additionalProperties: false },
);
export type Variable = Static<typeof Variable>;

/** Values as written: a string sets it, null keeps the value set there already (as a read shows a secret's). */
const valuesWritten = (maxChars: string) =>
  Type.Record(
    Type.String({ pattern: ENVIRONMENT_NAME_PATTERN.source }),
    Type.Union([Type.String({ maxLength: 8192, pattern: VALUE_PATTERN }), Type.Null()]),
    {
      additionalProperties: false,
      description:
        'The value in each environment named (which must exist), replacing every value the variable had; ' +
        `an environment left out has none. A value is at most ${maxChars} characters without CR, LF or ` +
        'other control characters (a tab is fine). null keeps the value already set there (what a read ' +
        'of a secret shows), and is refused where none is set.',
    },
  );

const description = Type.String({
  maxLength: MAX_DESCRIPTION_CHARS,
  description: `What the variable is for; at most ${MAX_DESCRIPTION_CHARS} characters.`,
});

export const VariableCreate = Type.Object(
  {
    name: variableName('A letter or `_`, then up to 63 letters, digits or `_`; unique in the workspace.'),
    description: Type.Optional(description),
    secret: Type.Optional(Type.Boolean({ description: 'Default false; a secret is never read back.' })),
    values: Type.Optional(valuesWritten('MAX_VARIABLE_VALUE_CHARS (default 8192)')),
  },
  {
    $id: 'VariableCreate',
    additionalProperties: false,
    examples: [{ name: 'API_HOST', values: { default: 'localhost:3000', staging: 'staging.example.com' } }],
  },
);

export const VariableUpdate = Type.Object(
  {
    description: Type.Optional(description),
    secret: Type.Optional(
      Type.Boolean({
        description: 'A secret made plain again needs its `values` given in the same request.',
      }),
    ),
    values: Type.Optional(valuesWritten('MAX_VARIABLE_VALUE_CHARS (default 8192)')),
  },
  {
    $id: 'VariableUpdate',
    additionalProperties: false,
    description: 'Fields left out keep their values; `values`, when sent, replace them all.',
    examples: [{ values: { default: 'localhost:4000', staging: 'staging.example.com' } }],
  },
);

/** A body as the service checks it; the values themselves are checked by hand (their problems never quote them). */
export const checkVariableWrite = compile(
  Type.Object(
    {
      name: Type.Optional(Type.String()),
      description: Type.Optional(Type.String()),
      secret: Type.Optional(Type.Boolean()),
      values: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    },
    { additionalProperties: false },
  ),
);

export const VariableParams = Type.Object({
  name: Type.String({
    pattern: VARIABLE_NAME_PATTERN.source,
    description: 'The variable name, as GET /v1/variables lists it; any other is not found.',
    examples: ['API_HOST'],
  }),
});

export const EnvironmentValues = Type.Object(
  {
    environment: environmentName('The environment read.'),
    revision: Type.Integer({
      description: 'The workspace revision the values are at least as new as (read before them).',
    }),
    values: Type.Record(Type.String({ pattern: VARIABLE_NAME_PATTERN.source }), Type.String(), {
      additionalProperties: false,
      description: 'Every variable with a value in the environment, secrets resolved, by name.',
      examples: [{ API_HOST: 'staging.example.com', API_TOKEN: 's3cr3t' }],
    }),
  },
  { $id: 'EnvironmentValues', additionalProperties: false },
);
export type EnvironmentValues = Static<typeof EnvironmentValues>;

/** A variable as history keeps it: a secret's values as fingerprints, never the values. */
export const VariableVersionObject = Type.Object(
  {
    name: Type.String(),
    description: Type.String(),
    secret: Type.Boolean(),
    values: Type.Record(Type.String(), Type.Union([Type.String(), Type.Null()]), {
      description:
        'As read then; for a secret, each value as `sha256:` and 16 hex digits of a hash salted with ' +
        'the workspace and the variable (to tell versions apart), never the value.',
    }),
    version: Type.Integer({ minimum: 1 }),
    creationDate: Timestamp,
    modificationDate: Timestamp,
  },
  { $id: 'VariableVersionObject', additionalProperties: false },
);
