// What a rule writes with captures, as Chrome's regexSubstitution: `\1` … `\9` are the groups of the
// regexFilter, `\0` its whole match, and a backslash is written `\\`. Chrome has no group past 9.

export type Template =
  | { kind: 'fixed'; text: string }
  | { kind: 'substitution'; text: string }
  | { kind: 'refused'; reason: string };

const backslashed = (text: string) => text.replaceAll('\\', '\\\\');

/**
 * A Redirect destination (`$1` … `$9`, `${N}`, `$$`, see captures.ts) over a regexFilter whose groups
 * are the source's `captures`: fixed text when it uses none of them.
 */
export function destinationTemplate(destination: string, captures: number): Template {
  let text = '';
  let fixed = '';
  let usesCaptures = false;
  const pattern = /\$(?:(\$)|\{(\d+)\}|([1-9]))/g;
  let last = 0;
  for (const match of destination.matchAll(pattern)) {
    const before = destination.slice(last, match.index);
    text += backslashed(before);
    fixed += before;
    last = match.index + match[0].length;
    const [whole, dollar, braced, digit] = match;
    if (dollar) {
      text += '$';
      fixed += '$';
      continue;
    }
    const n = Number(braced ?? digit);
    if (n < 1 || n > captures) {
      text += backslashed(whole);
      fixed += whole;
      continue;
    }
    if (n > 9)
      return { kind: 'refused', reason: `Chrome's substitutions reach groups 1 to 9 only, not \${${n}}` };
    usesCaptures = true;
    text += `\\${n}`;
  }
  text += backslashed(destination.slice(last));
  fixed += destination.slice(last);
  return usesCaptures ? { kind: 'substitution', text } : { kind: 'fixed', text: fixed };
}

/**
 * A Replace `to`, read as JavaScript's `replace` reads it, over the regexFilter `^(before)(from)(after)$`:
 * `$&` is group 2, `` $` `` group 1, `$'` the last, `$N` group N + 2 (when `from` has it), `$<name>` by
 * its number, `$$` a dollar sign. `groups`: the groups of `from` (0 for plain text, where `$1` stays).
 */
export function replacementTemplate(
  to: string,
  groups: number,
  names: ReadonlyMap<string, number> | undefined,
): Template {
  const after = groups + 3;
  if (after > 9)
    return { kind: 'refused', reason: `Chrome's substitutions reach 9 groups; this from has ${groups}` };
  let text = '\\1';
  for (let i = 0; i < to.length; i++) {
    const c = to[i] as string;
    const next = to[i + 1];
    if (c !== '$' || next === undefined) {
      text += c === '\\' ? '\\\\' : c;
      continue;
    }
    if (next === '$') text += '$';
    else if (next === '&') text += '\\2';
    else if (next === '`') text += '\\1';
    else if (next === "'") text += `\\${after}`;
    else if (/[0-9]/.test(next)) {
      const two = to.slice(i + 1, i + 3);
      if (/^[0-9]{2}$/.test(two) && Number(two) >= 1 && Number(two) <= groups) {
        text += `\\${Number(two) + 2}`;
        i += 2;
        continue;
      }
      const one = Number(next);
      text += one >= 1 && one <= groups ? `\\${one + 2}` : `$${next}`;
    } else if (next === '<' && names && names.size > 0 && to.indexOf('>', i) > 0) {
      const close = to.indexOf('>', i);
      const group = names.get(to.slice(i + 2, close));
      if (group !== undefined) text += `\\${group + 2}`;
      i = close;
      continue;
    } else text += `$${next === '\\' ? '\\\\' : next}`;
    i++;
  }
  return { kind: 'substitution', text: `${text}\\${after}` };
}
