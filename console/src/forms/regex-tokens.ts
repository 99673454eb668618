// A `Matches` pattern cut into the pieces the form colours: the `/…/flags` around it, escapes,
// character classes, groups, quantifiers, anchors and alternation. Only for the eye: the text is
// the one the person wrote, piece after piece (joined, the pieces are the value again, backslashes
// as typed), and a pattern the service will refuse is still cut, the service saying why. Pure, so
// the unit tests reach it without a browser.

export type RegexTokenKind =
  | 'delimiter'
  | 'flags'
  | 'escape'
  | 'class'
  | 'group'
  | 'quantifier'
  | 'anchor'
  | 'alternation'
  | 'any'
  | 'text';

export interface RegexToken {
  kind: RegexTokenKind;
  text: string;
}

/** `/pattern/flags`, as the service reads a Matches value (model/patterns.ts); a bare pattern has none. */
const DELIMITED = /^\/([\s\S]+)\/([A-Za-z]*)$/;

export function regexTokens(value: string): RegexToken[] {
  const delimited = DELIMITED.exec(value);
  if (!delimited) return patternTokens(value);
  return [
    { kind: 'delimiter', text: '/' },
    ...patternTokens(delimited[1] ?? ''),
    { kind: 'delimiter', text: '/' },
    ...(delimited[2] ? [{ kind: 'flags' as const, text: delimited[2] }] : []),
  ];
}

function patternTokens(pattern: string): RegexToken[] {
  const tokens: RegexToken[] = [];
  const push = (kind: RegexTokenKind, text: string) => {
    const last = tokens.at(-1);
    // Plain text and a class's inside run together: fewer spans, the same colours.
    if (last && last.kind === kind && (kind === 'text' || kind === 'class')) last.text += text;
    else tokens.push({ kind, text });
  };
  let i = 0;
  let inClass = false;
  while (i < pattern.length) {
    const c = pattern[i] as string;
    if (c === '\\') {
      // An escape and the character it escapes (`\d`, `\.`, `\\`); `\u{…}` and `\x..` whole.
      const escaped =
        /^\\(u\{[0-9a-fA-F]*\}?|u[0-9a-fA-F]{0,4}|x[0-9a-fA-F]{0,2}|c[A-Za-z]?|k<[^>]*>?|p\{[^}]*\}?|P\{[^}]*\}?|.)?/s.exec(
          pattern.slice(i),
        )?.[0] as string;
      push(inClass ? 'class' : 'escape', escaped);
      i += escaped.length;
      continue;
    }
    if (inClass) {
      push('class', c);
      if (c === ']') inClass = false;
      i++;
      continue;
    }
    if (c === '[') {
      inClass = true;
      // `[^` and a leading `]` belong to the class's opening.
      const opening = /^\[\^?/.exec(pattern.slice(i))?.[0] as string;
      push('class', opening);
      i += opening.length;
      continue;
    }
    if (c === '(') {
      const opening = /^\((\?(:|=|!|<=|<!|<[A-Za-z_$][\w$]*>))?/.exec(pattern.slice(i))?.[0] as string;
      tokens.push({ kind: 'group', text: opening });
      i += opening.length;
      continue;
    }
    if (c === ')') {
      tokens.push({ kind: 'group', text: c });
      i++;
      continue;
    }
    const quantifier = /^([*+?]|\{\d+(,\d*)?\})\??/.exec(pattern.slice(i))?.[0];
    if (quantifier && tokens.length) {
      tokens.push({ kind: 'quantifier', text: quantifier });
      i += quantifier.length;
      continue;
    }
    if (c === '^' || c === '$') tokens.push({ kind: 'anchor', text: c });
    else if (c === '|') tokens.push({ kind: 'alternation', text: c });
    else if (c === '.') tokens.push({ kind: 'any', text: c });
    else push('text', c);
    i++;
  }
  return tokens;
}
