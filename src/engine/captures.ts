// Captures in what a rule writes: $1 … $9, ${N} for any capture, $$ for a literal dollar sign.

/**
 * `template` with the pair's captures substituted. A capture that did not take part is empty; `$N`
 * or `${N}` beyond the captures stays as written; `$10` is `$1` followed by `0`.
 */
export function substituteCaptures(template: string, captures: readonly string[]): string {
  if (!template.includes('$')) return template;
  return template.replace(/\$(?:(\$)|\{(\d+)\}|([1-9]))/g, (whole, dollar, braced, digit) => {
    if (dollar) return '$';
    const n = Number(braced ?? digit);
    return n >= 1 && n <= captures.length ? (captures[n - 1] as string) : whole;
  });
}
