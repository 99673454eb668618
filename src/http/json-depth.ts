// How deep a JSON text nests, told from the text alone before anything parses it: a body nested a
// million levels would otherwise reach code that recurses (JSON.stringify, schema checks) and fail there.

/** Levels of nesting a body may have: the top-level object or array is level 1. */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;

interface Level {
  array: boolean;
  index: number;
  /** Where the current member's key is in the text (an object's level), for the pointer. */
  keyStart: number;
  keyEnd: number;
  expectingKey: boolean;
}

function keyToken(text: string, level: Level): string {
  const raw = text.slice(level.keyStart, level.keyEnd + 1);
  let key: string;
  try {
    key = JSON.parse(raw) as string;
  } catch {
    key = raw.slice(1, -1);
  }
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/**
 * The JSON Pointer of the first object or array in `text` that sits deeper than `maxDepth` levels, or
 * undefined when none does. One pass over the text, holding at most `maxDepth` levels whatever the
 * text; text that is not JSON is left for the parser to judge.
 */
export function tooDeepAt(text: string, maxDepth = MAX_JSON_DEPTH): string | undefined {
  const levels: Level[] = [];
  let inString = false;
  let stringStart = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) {
        inString = false;
        const top = levels[levels.length - 1];
        if (top && !top.array && top.expectingKey) {
          top.keyStart = stringStart;
          top.keyEnd = i;
        }
      }
      continue;
    }
    if (c === QUOTE) {
      inString = true;
      stringStart = i;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (levels.length >= maxDepth) {
        return levels.map((level) => `/${level.array ? level.index : keyToken(text, level)}`).join('');
      }
      levels.push({ array: c === OPEN_BRACKET, index: 0, keyStart: 0, keyEnd: -1, expectingKey: true });
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      levels.pop();
    } else if (c === COMMA) {
      const top = levels[levels.length - 1];
      if (top?.array) top.index++;
      else if (top) top.expectingKey = true;
    } else if (c === COLON) {
      const top = levels[levels.length - 1];
      if (top && !top.array) top.expectingKey = false;
    }
  }
  return undefined;
}

/** What is wrong with a value nested too deep, said at its pointer. */
export function tooDeepMessage(maxDepth = MAX_JSON_DEPTH): string {
  return `nests deeper than ${maxDepth} levels of objects and arrays, the most a body may have`;
}
