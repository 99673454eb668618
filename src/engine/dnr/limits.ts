// Chrome's limits on the rules an extension installs, and whether a regexFilter fits Chrome's RE2 budget.

/** Dynamic rules an extension may have (MAX_NUMBER_OF_DYNAMIC_RULES), in every Chrome the extension supports (128+). */
export const MAX_DYNAMIC_RULES = 30_000;
/** Of them, "unsafe" ones: redirect and modifyHeaders (MAX_NUMBER_OF_UNSAFE_DYNAMIC_RULES). */
export const MAX_UNSAFE_RULES = 5_000;
/** Rules with a regexFilter (MAX_NUMBER_OF_REGEX_RULES). */
export const MAX_REGEX_RULES = 1_000;

/**
 * Chrome compiles a regexFilter with RE2 limited to 2 KB of memory, over UTF-8 bytes. Measured with
 * Chromium 156's `isRegexSupported`: a literal of 114 characters fits, 115 does not, so the budget is
 * about 114 instructions of RE2's program. Kept a little under it.
 */
export const CHROME_REGEX_INSTRUCTIONS = 110;

/**
 * What a construct costs in Chrome beyond what re2js counts: re2js compiles classes over code points
 * (one instruction), Chrome's RE2 over UTF-8 bytes, where a class reaching past ASCII (`[^/]`, `\S`, `.`)
 * is a tree of byte ranges. Measured: `[^/?#]` costs about 7 instructions in Chrome, `.` about 4.
 */
const EXTRA = [
  { construct: /\[\^/g, cost: 6 },
  { construct: /\\[SWD]/g, cost: 6 },
  { construct: /\\[pP]/g, cost: 60 },
  { construct: /\\x\{[0-9A-Fa-f]{3,}\}/g, cost: 3 },
  { construct: /[\u0080-\uffff]/g, cost: 3 },
];

/**
 * Chrome's instructions for `regex`, estimated from re2js's program size (`programSize`) and the
 * byte-level extras above; `programSize` is undefined when re2js cannot compile it.
 */
export function chromeRegexCost(regex: string, programSize: number): number {
  let cost = programSize;
  for (const { construct, cost: each } of EXTRA) cost += (regex.match(construct)?.length ?? 0) * each;
  // `.` outside a class: counted from the text, escapes and classes skipped.
  cost += countDots(regex) * 3;
  cost += classRangeCost(regex);
  return cost;
}

/**
 * Chrome compiles a class of several ranges (`[!-"$-.0->A-~]`) to a branch per range, where re2js
 * counts one instruction: measured with isRegexSupported, about two more per range.
 */
function classRangeCost(regex: string): number {
  let extra = 0;
  for (let i = 0; i < regex.length; i++) {
    if (regex[i] === '\\') {
      i++;
      continue;
    }
    if (regex[i] !== '[') continue;
    let ranges = 0;
    let j = i + 1;
    if (regex[j] === '^') j++;
    for (let first = true; j < regex.length && (first || regex[j] !== ']'); first = false) {
      j += regex[j] === '\\' ? 2 : 1;
      if (regex[j] === '-' && regex[j + 1] !== ']') j += regex[j + 1] === '\\' ? 3 : 2;
      ranges++;
    }
    extra += 2 * ranges;
    i = j;
  }
  return extra;
}

function countDots(regex: string): number {
  let dots = 0;
  let inClass = false;
  for (let i = 0; i < regex.length; i++) {
    const c = regex[i];
    if (c === '\\') i++;
    else if (inClass) inClass = c !== ']';
    else if (c === '[') inClass = true;
    else if (c === '.') dots++;
  }
  return dots;
}
