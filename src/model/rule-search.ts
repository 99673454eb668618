// What the rules list's `search` looks in: the name, the description and each pair's source value,
// lower-cased by the service (as the search is) so that it behaves alike on both databases.

/** One text per rule, its parts on lines of their own so that a search never spans two of them. */
export function ruleSearchText(name: string, description: string, pairs: readonly unknown[]): string {
  const values = pairs.map((pair) => {
    const source = (pair as { source?: { value?: unknown } } | null)?.source;
    return typeof source?.value === 'string' ? source.value : '';
  });
  return [name, description, ...values]
    .filter((part) => part !== '')
    .join('\n')
    .toLowerCase();
}

/** The orders the rules list can be read in; each ends with the id, so pages are stable. */
export const RULE_SORTS = [
  'creationDate',
  'name',
  'ruleType',
  'modificationDate',
  '-modificationDate',
  'pinned',
  'status',
  'group',
] as const;
export type RuleSort = (typeof RULE_SORTS)[number];
