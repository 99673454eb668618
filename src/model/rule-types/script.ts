// The Script rule type: scripts or styles are injected into the pages that match.

import { type Static, Type } from '@sinclair/typebox';
import { sourceInvalidExamples, sourceVariants } from './example-helpers.js';
import { checkPairSource, pairNormaliser, pairSchema } from './pair-helpers.js';
import type { RuleTypeDefinition } from './rule-type.js';
import { oneOf, patternString } from './schema-helpers.js';

const ScriptId = Type.Optional(
  patternString('pairId', { description: 'Id of the script: 1 to 32 letters or digits; kept as sent.' }),
);

const Script = Type.Object(
  {
    // Requestly's type requires an id on each script; kept, as header and query-parameter changes' are.
    id: ScriptId,
    type: oneOf(['url', 'code'], {
      description: '`value` is a URL to load or the code itself.',
      examples: ['code'],
    }),
    codeType: oneOf(['js', 'css'], { description: 'JavaScript or a stylesheet.', examples: ['js'] }),
    loadTime: oneOf(['beforePageLoad', 'afterPageLoad', 'asSoonAsPossible'], {
      description: 'When the page gets it.',
      examples: ['afterPageLoad'],
    }),
    value: Type.String({ description: 'The URL or the code.', examples: ["console.log('injected')"] }),
    fileName: Type.Optional(
      Type.String({ description: 'Name shown for the script.', examples: ['debug.js'] }),
    ),
    attributes: Type.Optional(
      Type.Array(
        Type.Object(
          {
            name: Type.String({ minLength: 1, examples: ['defer'] }),
            value: Type.String({ examples: [''] }),
          },
          { additionalProperties: false },
        ),
        { description: 'Attributes of the injected tag.' },
      ),
    ),
  },
  { additionalProperties: false },
);

export const ScriptPair = pairSchema('ScriptPair', 'Injects scripts or styles into matching pages.', {
  scripts: Type.Array(Script, { minItems: 1, maxItems: 100 }),
  libraries: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 256 }), {
      maxItems: 100,
      description: 'Names of libraries Requestly loads before the scripts (e.g. jQuery); kept as sent.',
      examples: [['jQuery']],
    }),
  ),
});

const valid = {
  source: { key: 'Url', operator: 'Contains', value: 'example.com' },
  scripts: [{ type: 'code', codeType: 'js', loadTime: 'afterPageLoad', value: "console.log('injected')" }],
} satisfies ScriptPair;

const withScript = (script: Record<string, unknown>) => ({ ...valid, scripts: [script] });

/** A Script pair as stored and returned. */
export type ScriptPair = Static<typeof ScriptPair>;

export const script: RuleTypeDefinition = {
  name: 'Script',
  pair: ScriptPair,
  normalise: pairNormaliser(),
  check: checkPairSource,
  examples: {
    valid: [
      { title: 'inline JavaScript', pair: valid },
      {
        title: 'a stylesheet by URL with attributes, and a script, with a pair id',
        pair: {
          id: 's1',
          source: { key: 'host', operator: 'Equals', value: 'example.com' },
          scripts: [
            {
              type: 'url',
              codeType: 'css',
              loadTime: 'beforePageLoad',
              value: 'https://cdn.example.com/debug.css',
              fileName: 'debug.css',
              attributes: [{ name: 'media', value: 'screen' }],
            },
            {
              id: 'k3v9x',
              type: 'code',
              codeType: 'js',
              loadTime: 'asSoonAsPossible',
              value: 'window.debug = true',
            },
          ],
        } satisfies ScriptPair,
      },
      { title: 'with libraries', pair: { ...valid, libraries: ['jQuery'] } },
    ],
    invalid: [
      ...sourceInvalidExamples(valid),
      { title: 'no script', pair: { ...valid, scripts: [] }, path: '/scripts' },
      {
        title: 'code type not allowed',
        pair: withScript({ ...valid.scripts[0], codeType: 'ts' }),
        path: '/scripts/0/codeType',
      },
      {
        title: 'load time missing',
        pair: withScript({ type: 'code', codeType: 'js', value: '' }),
        path: '/scripts/0/loadTime',
      },
      {
        title: 'attribute without a name',
        pair: withScript({ ...valid.scripts[0], attributes: [{ value: 'x' }] }),
        path: '/scripts/0/attributes/0/name',
      },
      { title: 'a library name not a string', pair: { ...valid, libraries: [7] }, path: '/libraries/0' },
      {
        title: 'a script id that is not letters or digits',
        pair: withScript({ ...valid.scripts[0], id: 'a b' }),
        path: '/scripts/0/id',
      },
    ],
    variants: sourceVariants(valid),
  },
};
