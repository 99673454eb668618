// A rule's sources in a few words ("host equals api.example.com"), for lists where the whole rule
// does not fit: what it matches is what tells two rules of one name apart.
import type { Rule } from '../api.js';

const OPERATORS: Record<string, string> = {
  Equals: 'equals',
  Contains: 'contains',
  Matches: 'matches',
  Wildcard_Matches: 'matches wildcard',
};

const LONGEST = 60;

interface Source {
  key?: string;
  operator?: string;
  value?: string;
}

export function sourceSummary(rule: Pick<Rule, 'pairs'>): string {
  const sources = (rule.pairs as { source?: Source }[])
    .map((pair) => pair.source)
    .filter(Boolean) as Source[];
  const [first] = sources;
  if (!first) return 'every request';
  const value = first.value ?? '';
  const shown =
    value === '' ? 'anything' : value.length > LONGEST ? `${value.slice(0, LONGEST - 1)}…` : value;
  const more = sources.length > 1 ? ` (+${sources.length - 1} more)` : '';
  return `${first.key ?? 'Url'} ${OPERATORS[first.operator ?? ''] ?? first.operator} ${shown}${more}`;
}
