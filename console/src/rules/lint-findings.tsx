// The rule lint in the console: a badge per rule on the rules list (its most serious finding, and how
// many), and in the editor each finding about the rule with its hint. Read from GET /v1/lint again
// whenever the change stream says the rules changed.
import { useContext, useEffect, useState } from 'preact/hooks';
import type { Schemas } from '../api.js';
import { useEnvironments } from '../environments/environment-context.js';
import { findingLabel } from '../forms/labels.js';
import { LiveContext } from '../live-context.js';
import { useApi } from '../session.js';

export type Finding = Schemas['LintFinding'];

const ORDER = ['error', 'warning', 'info'] as const;
const WORDS: Record<Finding['severity'], [string, string]> = {
  error: ['error', 'errors'],
  warning: ['warning', 'warnings'],
  info: ['note', 'notes'],
};

/**
 * The workspace's findings (null until read) in the environment chosen in the header; read again
 * after every change, and when another is chosen.
 */
export function useLint(): Finding[] | null {
  const api = useApi();
  const changes = useContext(LiveContext);
  const { chosen: environment } = useEnvironments();
  const [findings, setFindings] = useState<Finding[] | null>(null);
  useEffect(() => {
    let current = true;
    api((client) => client.GET('/v1/lint', { params: { query: { environment } } }))
      .then((answer) => current && setFindings(answer.data.findings))
      // The list and the editor work without the lint: a failed read shows no badges.
      .catch(() => current && setFindings([]));
    return () => {
      current = false;
    };
  }, [api, changes, environment]);
  return findings;
}

/**
 * The findings a rule shows: those about it (it is named first), and every loop it is part of. A rule
 * that shadows another, or that later copies repeat, is not at fault: the later one shows it.
 */
export function findingsFor(findings: readonly Finding[] | null, ruleId: string): Finding[] {
  return (findings ?? []).filter(
    (f) => f.ruleIds[0] === ruleId || (f.code === 'redirect_loop' && f.ruleIds.includes(ruleId)),
  );
}

const worstOf = (findings: Finding[]) =>
  ORDER.find((severity) => findings.some((f) => f.severity === severity)) ?? 'info';

export function LintBadge({ findings, href }: { findings: Finding[]; href: string }) {
  if (findings.length === 0) return null;
  const worst = worstOf(findings);
  const count = findings.filter((f) => f.severity === worst).length;
  const [one, many] = WORDS[worst];
  const label = `${count} ${count === 1 ? one : many}`;
  return (
    <a class={`badge lint-${worst}`} href={href} title={findings.map((f) => f.message).join('\n')}>
      {label}
    </a>
  );
}

export function LintFindings({ findings }: { findings: Finding[] }) {
  if (findings.length === 0) return null;
  return (
    <section class="lint-findings" aria-labelledby="lint-title">
      <h2 id="lint-title">What the rule lint finds</h2>
      <ul>
        {findings.map((finding) => (
          <li key={`${finding.code} ${finding.ruleIds.join(' ')}`} class={`lint-${finding.severity}`}>
            <span class={`badge lint-${finding.severity}`}>{finding.severity}</span>{' '}
            <strong>{findingLabel(finding.code)}:</strong> {finding.message}
            <p class="hint">Hint: {finding.hint}</p>
          </li>
        ))}
      </ul>
    </section>
  );
}
