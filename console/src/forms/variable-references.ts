// `{{NAME}}` in a rule's text fields, as the form sees it while someone types: where a reference is
// being opened (for the completion), what choosing a name writes, and which references name no
// variable. Pure, so the rules are tested on their own; decisions.md §20 says where `{{NAME}}` stands.

/** A variable's name, as the API takes it. */
const NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
/** Exactly two braces each side, as the engine reads them: `{{{body}}}` is a mock's own template. */
const REFERENCE = /(?<!\{)\{\{([A-Za-z_][A-Za-z0-9_]{0,63})\}\}(?!\})/g;

/**
 * The pair fields whose `{{NAME}}` the service replaces (§20, as src/engine/variables.ts walks them):
 * source values and a filter's page URL value, destinations, Replace's from and to, user agents,
 * bodies and status text, script code and URLs, header names and values, query-parameter values.
 * Elsewhere (a rule's name, its description) `{{` is plain text, and offers nothing.
 */
const TAKES_VARIABLES = [
  /^\/pairs\/\d+\/source\/value$/,
  /^\/pairs\/\d+\/source\/filters\/\d+\/URL\/value$/,
  /^\/pairs\/\d+\/(destination|from|to|userAgent|value|statusText)$/,
  /^\/pairs\/\d+\/scripts\/\d+\/value$/,
  /^\/pairs\/\d+\/modifications\/\d+\/(Request|Response)\/\d+\/(header|value)$/,
  /^\/pairs\/\d+\/modifications\/\d+\/value$/,
];

export function takesVariables(pointer: string | undefined): boolean {
  return pointer !== undefined && TAKES_VARIABLES.some((shape) => shape.test(pointer));
}

/** A reference being typed: `{{` (and the start of a name) just before the caret. */
export interface OpenReference {
  /** Where its `{{` starts. */
  start: number;
  /** The name typed so far (maybe empty). */
  prefix: string;
}

export function openReference(text: string, caret: number): OpenReference | null {
  const found = /(?<!\{)\{\{([A-Za-z0-9_]{0,64})$/.exec(text.slice(0, caret));
  if (!found) return null;
  const prefix = found[1] ?? '';
  // `{{1…` can never become a name: nothing to offer.
  if (prefix !== '' && !NAME.test(prefix)) return null;
  return { start: found.index, prefix };
}

/** The names to offer for a reference: those starting with what was typed, then those holding it. */
export function matchingNames(names: readonly string[], prefix: string): string[] {
  const typed = prefix.toLowerCase();
  const starts = names.filter((name) => name.toLowerCase().startsWith(typed));
  const holds = names.filter((name) => !starts.includes(name) && name.toLowerCase().includes(typed));
  return [...starts, ...holds];
}

/**
 * The text with `{{NAME}}` written over the reference being typed (and over the rest of a name and
 * its `}}` already after the caret, when someone completes inside an existing reference), and where
 * the caret goes: just after the `}}`.
 */
export function complete(
  text: string,
  caret: number,
  reference: OpenReference,
  name: string,
): { text: string; caret: number } {
  const rest = text.slice(caret);
  const tail = /^[A-Za-z0-9_]*\}\}/.exec(rest)?.[0] ?? '';
  const written = `{{${name}}}`;
  return {
    text: text.slice(0, reference.start) + written + rest.slice(tail.length),
    caret: reference.start + written.length,
  };
}

/** Each distinct `{{NAME}}` in the text, in the order they first appear. */
export function referencesIn(text: string): string[] {
  return [...new Set([...text.matchAll(REFERENCE)].map((found) => found[1] as string))];
}

/** What the form says about a reference: it names no variable, or one with no value where tried. */
export type ReferenceNote = { name: string; problem: 'unknown' } | { name: string; problem: 'no-value' };

/**
 * References that will stay as written: names of no variable, and (for the environment the console
 * tries rules in) variables with no value there.
 */
export function referenceNotes(
  text: string,
  variables: readonly { name: string; values: Record<string, unknown> }[],
  environment: string,
): ReferenceNote[] {
  return referencesIn(text).flatMap((name): ReferenceNote[] => {
    const variable = variables.find((candidate) => candidate.name === name);
    if (!variable) return [{ name, problem: 'unknown' }];
    return Object.hasOwn(variable.values, environment) ? [] : [{ name, problem: 'no-value' }];
  });
}
