// The rule editor's words: where a refusal points, said as the form labels fields and counts pairs
// (from 1, no JSON pointer); wire values labelled; and which drafts would act on every request, said
// as the confirmation says it.
import { describe, expect, it } from 'vitest';
import { guessBodyKind, prettyJson } from '../../console/src/forms/body-kind.js';
import {
  detailWords,
  fieldHint,
  fieldLabel,
  findingLabel,
  inSentence,
  pointerWords,
  valueLabel,
} from '../../console/src/forms/labels.js';
import { regexTokens } from '../../console/src/forms/regex-tokens.js';
import { matchesEveryRequest, unsafePairs } from '../../console/src/rules/editor-safety.js';

describe('the editor in words', () => {
  it('says where a refusal points as the form does, counting from 1', () => {
    expect(detailWords({ path: '/pairs/0/destination', message: 'must not be empty' })).toBe(
      'Pair 1 · Destination: must not be empty',
    );
    // A message that names its place already says it once.
    expect(detailWords({ path: '/cases/1', message: 'case 2 must have a name' })).toBe(
      'Case 2: must have a name',
    );
    expect(pointerWords('/pairs/2/source/filters/1/URL/value')).toBe(
      'Pair 3 · Source · Filter 2 · Page URL · Value',
    );
    expect(pointerWords('/pairs/0/modifications/Request/1/header')).toBe(
      'Pair 1 · Modifications · Request header 2 · Header',
    );
    // A filter's conditions by their plain names; a Response or Request pair's value is its body.
    expect(pointerWords('/pairs/0/source/filters/0/requestMethod')).toBe(
      'Pair 1 · Source · Filter 1 · Request method',
    );
    expect(pointerWords('/pairs/0/source/filters/0/requestPayload/key')).toBe(
      'Pair 1 · Source · Filter 1 · Request body · Key',
    );
    expect(pointerWords('/pairs/0/source/filters/0/pageDomains/1')).toBe(
      'Pair 1 · Source · Filter 1 · Page domain 2',
    );
    expect(pointerWords('/pairs/1/value')).toBe('Pair 2 · Body');
    expect(pointerWords('/name')).toBe('Name');
    expect(pointerWords('')).toBe('The rule');
    expect(pointerWords('/pairs/0/destinationType')).not.toMatch(/\//);
  });

  it('labels wire values, and leaves unlabelled ones as they are', () => {
    expect(valueLabel('Wildcard_Matches')).toBe('Wildcard');
    expect(valueLabel('map_local')).toBe('Local file (map local)');
    expect(valueLabel('mock_or_file_picker')).toBe('Mock or file');
    expect(valueLabel('restApi')).toBe('REST API');
    expect(valueLabel('GET')).toBe('GET');
    expect(valueLabel('constructor')).toBe('constructor');
    expect(findingLabel('shadowed')).toBe('Can never act');
  });

  it('labels and hints fields for people', () => {
    expect(fieldLabel('URL', '/pairs/0/source/filters/0/URL')).toBe('Page URL');
    expect(fieldLabel('URL', '/request/URL')).toBe('URL');
    expect(fieldLabel('destinationType', '/pairs/0/destinationType')).toBe('Destination type');
    expect(fieldHint('/pairs/0/delay')).toMatch(/up to a maximum set by the server/);
    expect(fieldHint('/pairs/0/delay')).not.toMatch(/MAX_DELAY_MS/);
    expect(inSentence('Page URL')).toBe('page URL');
    expect(inSentence('Request payload')).toBe('request payload');
  });
});

describe('what the editor asks before saving', () => {
  const pair = (source: Record<string, unknown>) => ({ source: { key: 'Url', ...source } });

  it('finds sources that match every request, filters included', () => {
    expect(matchesEveryRequest({ operator: 'Contains', value: '' })).toBe(true);
    expect(matchesEveryRequest({ operator: 'Equals', value: '  ' })).toBe(true);
    expect(matchesEveryRequest({ operator: 'Wildcard_Matches', value: '*' })).toBe(true);
    expect(matchesEveryRequest({ operator: 'Matches', value: '/.*/' })).toBe(true);
    expect(matchesEveryRequest({ operator: 'Matches', value: '.*' })).toBe(true);
    expect(matchesEveryRequest({ operator: 'Contains', value: '/' })).toBe(true);
    expect(matchesEveryRequest({ operator: 'Contains', value: 'ads' })).toBe(false);
    expect(matchesEveryRequest({ operator: 'Equals', value: '*' })).toBe(false);
    expect(
      matchesEveryRequest({ operator: 'Contains', value: '', filters: [{ pageDomains: ['a.example'] }] }),
    ).toBe(false);
    // A filter with nothing in it narrows nothing.
    expect(matchesEveryRequest({ operator: 'Contains', value: '', filters: [{ requestMethod: [] }] })).toBe(
      true,
    );
  });

  it('says what each unsafe pair would do; types that add to every request are not asked about', () => {
    expect(unsafePairs({ ruleType: 'Cancel', pairs: [pair({ operator: 'Contains', value: '' })] })).toEqual([
      { index: 0, sentence: 'This rule has no source: it will cancel every request.' },
    ]);
    expect(
      unsafePairs({
        ruleType: 'Redirect',
        pairs: [
          pair({ operator: 'Contains', value: 'a' }),
          pair({ operator: 'Wildcard_Matches', value: '*' }),
        ],
      }),
    ).toEqual([
      {
        index: 1,
        sentence:
          'Pair 2 of this rule has a source that matches every URL (“*”, no filter): it will redirect every request.',
      },
    ]);
    expect(unsafePairs({ ruleType: 'Headers', pairs: [pair({ operator: 'Contains', value: '' })] })).toEqual(
      [],
    );
  });
});

describe("a body's colours and its pretty-printing", () => {
  it('reads a static body as JSON, HTML or plain text', () => {
    expect(guessBodyKind('{"ok":true}')).toBe('json');
    expect(guessBodyKind('  [1, 2]')).toBe('json');
    expect(guessBodyKind('"just a string"')).toBe('json');
    expect(guessBodyKind('42')).toBe('json');
    expect(guessBodyKind('<p>Down</p>')).toBe('html');
    expect(guessBodyKind('<!doctype html>')).toBe('html');
    expect(guessBodyKind('OK')).toBe('text');
    expect(guessBodyKind('12 apples')).toBe('text');
    expect(guessBodyKind('')).toBe('text');
  });

  it('lays out JSON with two spaces, and leaves what does not parse', () => {
    expect(prettyJson('{"a":[1,{"b":null}]}')).toBe(
      '{\n  "a": [\n    1,\n    {\n      "b": null\n    }\n  ]\n}',
    );
    expect(prettyJson('{"a":')).toBeNull();
  });
});

describe('a Matches pattern cut for its colours', () => {
  const cut = (value: string) => regexTokens(value).map(({ kind, text }) => `${kind}:${text}`);

  it('gives back the pattern exactly as written, backslashes as typed', () => {
    for (const value of [
      String.raw`/^https:\/\/shop\.example\.com\/(?:cart|checkout)\d{2,}[^#\]]*$/iu`,
      String.raw`\\server\share`,
      'plain text, no pattern',
      '(unclosed [class \\',
      '/',
      '',
    ]) {
      expect(
        regexTokens(value)
          .map((token) => token.text)
          .join(''),
        value,
      ).toBe(value);
    }
  });

  it('names delimiters, flags, escapes, classes, groups, quantifiers, anchors and alternation', () => {
    expect(cut(String.raw`/^a\.(?<n>b|c)+?[^x\]]{2,3}.$/gi`)).toEqual([
      'delimiter:/',
      'anchor:^',
      'text:a',
      String.raw`escape:\.`,
      'group:(?<n>',
      'text:b',
      'alternation:|',
      'text:c',
      'group:)',
      'quantifier:+?',
      String.raw`class:[^x\]]`,
      'quantifier:{2,3}',
      'any:.',
      'anchor:$',
      'delimiter:/',
      'flags:gi',
    ]);
    // A bare pattern has no delimiters; a quantifier with nothing before it is text.
    expect(cut('*a')).toEqual(['text:*a']);
    // As the service reads it: `//` is no pattern literal, and a flag is any letter.
    expect(cut('//')).toEqual(['text://']);
    expect(cut('/a/X')).toEqual(['delimiter:/', 'text:a', 'delimiter:/', 'flags:X']);
    expect(cut('{{HOST}}/x')).toEqual(['text:{{HOST}}/x']);
  });
});
