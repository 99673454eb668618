// The console's `{{` completion and hints, on their own: where a reference is being typed, what
// choosing a name writes, which fields take variables, and which references stay as written.
import { describe, expect, it } from 'vitest';
import {
  complete,
  matchingNames,
  openReference,
  referenceNotes,
  referencesIn,
  takesVariables,
} from '../../console/src/forms/variable-references.js';

describe('`{{` completion', () => {
  it('opens on `{{` and the start of a name just before the caret', () => {
    expect(openReference('https://{{', 10)).toEqual({ start: 8, prefix: '' });
    expect(openReference('https://{{AP/x', 12)).toEqual({ start: 8, prefix: 'AP' });
    expect(openReference('https://{{API}}', 15)).toBeNull();
    expect(openReference('{ {', 3)).toBeNull();
    // Three braces open a mock's own template, not a variable.
    expect(openReference('{{{', 3)).toBeNull();
    // A name never starts with a digit: nothing to offer.
    expect(openReference('{{1', 3)).toBeNull();
    // Only what is before the caret counts.
    expect(openReference('{{API', 1)).toBeNull();
  });

  it('offers names that start with what was typed first, then those holding it, whatever the case', () => {
    expect(matchingNames(['HOST', 'API', 'API_KEY', 'MY_API'], 'api')).toEqual(['API', 'API_KEY', 'MY_API']);
    expect(matchingNames(['HOST', 'API'], '')).toEqual(['HOST', 'API']);
  });

  it('writes `{{NAME}}` over what was typed and puts the caret after it', () => {
    const text = 'https://{{AP/path';
    expect(complete(text, 12, { start: 8, prefix: 'AP' }, 'API')).toEqual({
      text: 'https://{{API}}/path',
      caret: 15,
    });
    // Completing inside a reference already closed replaces its name, not adding a second `}}`.
    expect(complete('{{AP_OLD}}/x', 4, { start: 0, prefix: 'AP' }, 'API')).toEqual({
      text: '{{API}}/x',
      caret: 7,
    });
  });

  it('offers variables in the fields §20 lists only', () => {
    for (const pointer of [
      '/pairs/0/destination',
      '/pairs/1/source/value',
      '/pairs/0/source/filters/0/URL/value',
      '/pairs/0/from',
      '/pairs/0/to',
      '/pairs/0/userAgent',
      '/pairs/0/value',
      '/pairs/0/statusText',
      '/pairs/0/scripts/2/value',
      '/pairs/0/modifications/0/Request/1/header',
      '/pairs/0/modifications/0/Response/0/value',
      '/pairs/0/modifications/3/value',
    ])
      expect(takesVariables(pointer), pointer).toBe(true);
    for (const pointer of ['/name', '/description', '/pairs/0/source/filters/0/requestMethod', undefined])
      expect(takesVariables(pointer), String(pointer)).toBe(false);
  });
});

describe('references that stay as written', () => {
  const variables = [
    { name: 'API', values: { dev: 'http://localhost:3000', staging: 'https://staging.example.com' } },
    { name: 'TOKEN', values: { staging: null } },
  ];

  it('lists each reference once, in order', () => {
    // `{{ A }}` and `{{{C}}}` are not references (the engine's rule: exactly two braces, no spaces).
    expect(referencesIn('{{B}}/{{A}}/{{B}}/{{ not one }}/{{{C}}}')).toEqual(['B', 'A']);
  });

  it('names a reference to no variable, and one with no value in the environment tried', () => {
    expect(referenceNotes('{{API}}/{{APII}}?t={{TOKEN}}', variables, 'dev')).toEqual([
      { name: 'APII', problem: 'unknown' },
      { name: 'TOKEN', problem: 'no-value' },
    ]);
    // A secret's value is hidden (null) but set: nothing to say.
    expect(referenceNotes('{{API}}?t={{TOKEN}}', variables, 'staging')).toEqual([]);
  });
});
