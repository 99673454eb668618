// `no_op`: a change that can never change anything. Only what can be told exactly: a Replace `from`
// that no URL its source matches contains, a QueryParam Remove of a parameter its source's URL has
// not (or that the pair already removed), a Headers Modify of a header the pair itself removed.
import { isPatternLiteral } from '../../model/patterns.js';
import { compileRegex } from '../regex.js';
import { tryUrl } from '../request.js';
import type { Source } from './sources.js';
import type { Finding, LintRule } from './types.js';

/** The one URL the source matches, when it matches only one (the whole URL, compared exactly). */
function fixedUrl(source: Source): string | undefined {
  if (source.key !== 'Url' || source.value === '') return undefined;
  const fixed =
    source.operator === 'Equals' || (source.operator === 'Wildcard_Matches' && !source.value.includes('*'));
  return fixed ? source.value : undefined;
}

/** What a serialised URL never holds: white space, quotes and angle brackets are encoded, non-ASCII too. */
function neverInUrl(text: string): boolean {
  return [...text].some(
    (c) => (c.codePointAt(0) as number) <= 0x20 || (c.codePointAt(0) as number) >= 0x7f || '"<>'.includes(c),
  );
}

function replaceNoOp(rule: LintRule, pair: Record<string, unknown>, index: number): Finding | undefined {
  const from = pair.from as string;
  const to = pair.to as string;
  const url = fixedUrl(pair.source as Source);
  let why: string | undefined;
  if (isPatternLiteral(from)) {
    const compiled = compileRegex(from);
    if (url !== undefined && compiled.ok && !compiled.regex.test(url))
      why = `the pattern ${from} does not match ${url}, the only URL its source matches`;
  } else if (neverInUrl(from)) {
    why = `${JSON.stringify(from)} holds a character a URL as sent never has (it is percent-encoded or removed)`;
  } else if (url !== undefined && !url.includes(from)) {
    why = `${JSON.stringify(from)} is not in ${url}, the only URL its source matches`;
  } else if (from === to && !to.includes('$')) {
    why = `it replaces ${JSON.stringify(from)} by the same text`;
  }
  if (!why) return undefined;
  return {
    code: 'no_op',
    severity: 'warning',
    ruleIds: [rule.id],
    pointers: [{ ruleId: rule.id, path: `/pairs/${index}/from` }],
    message: `Pair ${index + 1} of "${rule.name}" never changes a URL: ${why}.`,
    hint: 'Check `from` against a URL the source really matches (a trace shows both), or the source against the URLs you meant.',
  };
}

function decodedName(part: string): string {
  const name = part.split('=')[0] as string;
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}

function queryNoOps(rule: LintRule, pair: Record<string, unknown>, index: number): Finding[] {
  const url = fixedUrl(pair.source as Source);
  let present: Set<string> | undefined;
  const parsed = url === undefined ? undefined : tryUrl(url);
  if (parsed) {
    present = new Set(parsed.search.slice(1).split('&').filter(Boolean).map(decodedName));
  }
  // What this pair has removed so far, and added back since.
  const removed = new Set<string>();
  const added = new Set<string>();
  let removedAll = false;
  const findings: Finding[] = [];
  const modifications = pair.modifications as { param?: string; type: string }[];
  modifications.forEach(({ param = '', type }, k) => {
    if (type === 'Add') {
      added.add(param);
      return;
    }
    let why: string | undefined;
    if (type === 'Remove All') {
      if (removedAll && added.size === 0) why = 'this pair already removed the whole query';
      else if (present?.size === 0 && !removedAll && added.size === 0)
        why = `its source matches only ${url}, which has no query`;
      removedAll = true;
      removed.clear();
      added.clear();
    } else {
      if ((removedAll || removed.has(param)) && !added.has(param))
        why = `this pair already removed "${param}"`;
      else if (present && !present.has(param) && !added.has(param))
        why = `its source matches only ${url}, which has no parameter "${param}"`;
      removed.add(param);
      added.delete(param);
    }
    if (!why) return;
    findings.push({
      code: 'no_op',
      severity: 'warning',
      ruleIds: [rule.id],
      pointers: [{ ruleId: rule.id, path: `/pairs/${index}/modifications/${k}` }],
      message: `Modification ${k + 1} of pair ${index + 1} of "${rule.name}" never changes a URL: ${why}.`,
      hint: 'Delete this modification, or fix the parameter name.',
    });
  });
  return findings;
}

function headersNoOps(rule: LintRule, pair: Record<string, unknown>, index: number): Finding[] {
  const findings: Finding[] = [];
  const sets = pair.modifications as Record<string, { header: string; type: string }[] | undefined>[];
  for (const target of ['Request', 'Response']) {
    const removed = new Set<string>();
    sets.forEach((set, s) => {
      (set[target] ?? []).forEach(({ header, type }, k) => {
        const name = header.toLowerCase();
        if (type === 'Remove') removed.add(name);
        else if (type === 'Add') removed.delete(name);
        else if (removed.has(name)) {
          findings.push({
            code: 'no_op',
            severity: 'warning',
            ruleIds: [rule.id],
            pointers: [{ ruleId: rule.id, path: `/pairs/${index}/modifications/${s}/${target}/${k}` }],
            message: `The Modify of ${target.toLowerCase()} header "${header}" in pair ${index + 1} of "${rule.name}" never acts: the same pair removes that header before it, and Modify changes only a header that is there.`,
            hint: 'Use Add to set the header after removing it, or drop the Remove.',
          });
        }
      });
    });
  }
  return findings;
}

export function noOps(rule: LintRule): Finding[] {
  return rule.pairs.flatMap((pair, index) => {
    if (rule.ruleType === 'Replace') return replaceNoOp(rule, pair, index) ?? [];
    if (rule.ruleType === 'QueryParam') return queryNoOps(rule, pair, index);
    if (rule.ruleType === 'Headers') return headersNoOps(rule, pair, index);
    return [];
  });
}
