// Texts a source matches, generated from its value: what the lint tries other sources on when it
// cannot decide a question exactly (a regular expression against another pattern). Generation reads
// the pattern as JavaScript does; every sample is then checked with the engine's own matcher, so a
// sample is always a text the source really matches. Seeded by the value: the same findings every run.

import { parsePattern } from '../../model/patterns.js';
import { compileMatcher } from '../match.js';

type Node =
  | { t: 'text'; text: string }
  | { t: 'set'; chars: string }
  | { t: 'cat'; items: Node[] }
  | { t: 'alt'; options: Node[] }
  | { t: 'rep'; node: Node; min: number; max: number };

class Unsupported extends Error {}

const PRINTABLE = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join('');
/** What `.` stands for in samples: characters URLs are made of. */
const URL_CHARS = 'abcxyz0189-._~/?=&%';

/** The printable ASCII characters a one-character pattern (a class, `\d`) accepts, as JavaScript reads it. */
function charsOf(atom: string, flags: string): string {
  let regex: RegExp;
  try {
    regex = new RegExp(`^(?:${atom})$`, flags.includes('i') ? 'i' : '');
  } catch {
    throw new Unsupported(atom);
  }
  const chars = [...PRINTABLE].filter((c) => regex.test(c)).join('');
  if (chars === '') throw new Unsupported(atom);
  return chars;
}

function parse(pattern: string, flags: string): Node {
  let i = 0;
  const alt = (): Node => {
    const options = [cat()];
    while (pattern[i] === '|') {
      i++;
      options.push(cat());
    }
    return options.length === 1 ? (options[0] as Node) : { t: 'alt', options };
  };
  const cat = (): Node => {
    const items: Node[] = [];
    while (i < pattern.length && pattern[i] !== '|' && pattern[i] !== ')') items.push(quantified(atom()));
    return { t: 'cat', items };
  };
  const quantified = (node: Node): Node => {
    const c = pattern[i];
    let range: [number, number] | undefined;
    if (c === '*') range = [0, Number.POSITIVE_INFINITY];
    else if (c === '+') range = [1, Number.POSITIVE_INFINITY];
    else if (c === '?') range = [0, 1];
    const braces = c === '{' ? /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i)) : null;
    if (braces) {
      const min = Number(braces[1]);
      range = [min, braces[2] === undefined ? min : braces[3] ? Number(braces[3]) : Number.POSITIVE_INFINITY];
      i += braces[0].length - 1;
    }
    if (!range) return node;
    i++;
    if (pattern[i] === '?') i++; // lazy: the same texts
    return { t: 'rep', node, min: range[0], max: range[1] };
  };
  const atom = (): Node => {
    const c = pattern[i] as string;
    if (c === '(') {
      if (pattern.startsWith('(?:', i)) i += 3;
      else if (/^\(\?<[A-Za-z_]/.test(pattern.slice(i))) i = pattern.indexOf('>', i) + 1;
      else if (pattern[i + 1] === '?') throw new Unsupported('group');
      else i++;
      const inner = alt();
      if (pattern[i] !== ')') throw new Unsupported('unclosed group');
      i++;
      return inner;
    }
    if (c === '[') {
      let j = i + 1;
      if (pattern[j] === '^') j++;
      while (j < pattern.length && pattern[j] !== ']') j += pattern[j] === '\\' ? 2 : 1;
      const chars = charsOf(pattern.slice(i, j + 1), flags);
      i = j + 1;
      return { t: 'set', chars };
    }
    i++;
    if (c === '.') return { t: 'set', chars: URL_CHARS };
    if (c === '^' || c === '$') return { t: 'text', text: '' };
    if ('*+?)'.includes(c)) throw new Unsupported(c);
    if (c !== '\\') return { t: 'text', text: c };
    const e = pattern[i++] ?? '';
    if (e === 'b' || e === 'B') return { t: 'text', text: '' };
    if ('dwsDWS'.includes(e)) return { t: 'set', chars: charsOf(`\\${e}`, flags) };
    if (e === 'x' || e === 'u') {
      const hex = pattern.slice(i, i + (e === 'x' ? 2 : 4));
      i += hex.length;
      return { t: 'text', text: String.fromCharCode(Number.parseInt(hex, 16)) };
    }
    const controls: Record<string, string> = { n: '\n', t: '\t', r: '\r', f: '\f', v: '\v', '0': '\0' };
    if (controls[e]) return { t: 'text', text: controls[e] };
    if (/[A-Za-z0-9]/.test(e)) throw new Unsupported(`\\${e}`);
    return { t: 'text', text: e };
  };
  const tree = alt();
  if (i < pattern.length) throw new Unsupported('unbalanced )');
  return tree;
}

/** A small seeded generator (mulberry32): the same samples for the same value, run after run. */
function seeded(text: string): () => number {
  let seed = 0;
  for (const c of text) seed = (Math.imul(seed, 31) + (c.codePointAt(0) ?? 0)) | 0;
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function generate(node: Node, random: () => number): string {
  const pick = (n: number) => Math.floor(random() * n);
  switch (node.t) {
    case 'text':
      return node.text;
    case 'set':
      return node.chars[pick(node.chars.length)] as string;
    case 'cat':
      return node.items.map((item) => generate(item, random)).join('');
    case 'alt':
      return generate(node.options[pick(node.options.length)] as Node, random);
    case 'rep': {
      const count = node.min + pick(Math.min(node.max - node.min, 3) + 1);
      return Array.from({ length: count }, () => generate(node.node, random)).join('');
    }
  }
}

/** Text around a match, as each key's texts have it (an unanchored pattern matches inside them). */
const CONTEXT: Record<string, { before: string[]; after: string[] }> = {
  Url: {
    before: ['https://www.example.org/', 'http://localhost:8080/a?next=', 'wss://x.test/'],
    after: ['/index.html', '?q=1#top', ''],
  },
  host: { before: ['www.', 'a-b.', ''], after: ['.org', ':8443', ''] },
  path: { before: ['/v9/', '/static/x', ''], after: ['/index.html', '.json', ''] },
};

function flipCase(text: string, random: () => number): string {
  return [...text].map((c) => (random() < 0.5 ? c.toUpperCase() : c.toLowerCase())).join('');
}

/** Texts of the source's key that `operator value` matches: up to `count`, fewer when hard to find. */
export function sampleTexts(key: string, operator: string, value: string, count = 48): string[] {
  const random = seeded(`${key} ${operator} ${value}`);
  const pick = <T>(list: T[]) => list[Math.floor(random() * list.length)] as T;
  const context = CONTEXT[key] ?? (CONTEXT.Url as { before: string[]; after: string[] });
  let core: () => string;
  if (operator === 'Equals') return [value];
  if (operator === 'Contains') core = () => value;
  else if (operator === 'Wildcard_Matches') {
    core = () =>
      value
        .split('*')
        .map((part, index) =>
          index === 0
            ? part
            : `${generate({ t: 'rep', node: { t: 'set', chars: URL_CHARS }, min: 0, max: 6 }, random)}${part}`,
        )
        .join('');
  } else {
    const { pattern, flags } = parsePattern(value);
    let tree: Node;
    try {
      tree = parse(pattern, flags);
    } catch (error) {
      if (error instanceof Unsupported) return [];
      throw error;
    }
    core = () => {
      const text = generate(tree, random);
      return flags.includes('i') ? flipCase(text, random) : text;
    };
  }
  const matcher = compileMatcher({ operator, value });
  const samples = new Set<string>();
  for (let attempt = 0; attempt < count * 3 && samples.size < count; attempt++) {
    const middle = core();
    const tries = [
      `${pick(context.before)}${middle}${pick(context.after)}`,
      `${pick(context.before)}${middle}`,
      `${middle}${pick(context.after)}`,
      middle,
    ];
    const found = tries.find((text) => matcher.test(text) !== undefined);
    if (found !== undefined) samples.add(found);
  }
  return [...samples];
}
