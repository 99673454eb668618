// What a change would do, as the service worked it out before anyone merges it: the lint findings it
// adds and removes, each stored test suite before and after with the cases that start failing or
// passing, the trace of every request whose outcome differs (before and after side by side), and the
// rules whose browser compile status changes. While the service computes it, it says so.
import type { ChangeOperation, Evidence } from '../api.js';
import type { Finding } from '../rules/lint-findings.js';
import type { TraceData } from '../trace/trace-changes.js';
import { TraceSummary } from '../trace/trace-result.js';
import { browserWords, type Names, nameKey, pointerWords } from './change-request-words.js';

type Outcome = NonNullable<Evidence['outcomes']>[number];

/** A case's trace as the evidence keeps it: the outcome and the rules that acted, or none (refused). */
interface CaseTrace {
  outcome: TraceData['outcome'];
  rules: { ruleId: string; name: string; acted: boolean }[];
}

interface CaseRequest {
  url?: string;
  method?: string;
  headers?: Record<string, string | string[]>;
}

const SEVERITY: Record<Finding['severity'], string> = { error: 'error', warning: 'warning', info: 'note' };

function Findings({ findings, empty }: { findings: Finding[]; empty: string }) {
  if (findings.length === 0) return <p class="empty">{empty}</p>;
  return (
    <ul class="lint-findings">
      {findings.map((finding, i) => (
        <li key={i} class={`lint-${finding.severity}`}>
          <span class={`badge lint-${finding.severity}`}>{SEVERITY[finding.severity]}</span> {finding.message}
          {finding.hint ? <p class="hint">Hint: {finding.hint}</p> : null}
        </li>
      ))}
    </ul>
  );
}

const tally = ({ passed, failed }: { passed: number; failed: number }) =>
  `${passed} passed, ${failed} failed`;

function Trace({ trace, request }: { trace: CaseTrace | null; request: CaseRequest }) {
  if (!trace) return <p>The request could not be tried: the case does not describe a valid request.</p>;
  const acted = trace.rules.filter((rule) => rule.acted);
  // The trace summary reads the full trace's shape; the evidence keeps which rules acted, not why.
  const data = {
    request: { url: request.url ?? '', method: request.method ?? 'GET', headers: request.headers ?? {} },
    outcome: trace.outcome,
    rules: trace.rules.map((rule) => ({
      ...rule,
      ruleType: '',
      reason: rule.acted ? 'acted' : 'no_pair_matched',
      pairs: [],
    })),
  } as unknown as TraceData;
  return (
    <>
      <TraceSummary trace={data} sentHeaders={request.headers ?? {}} />
      <p class="hint">
        {acted.length === 0
          ? 'No rule acted.'
          : `Acted: ${acted.map((rule) => `“${rule.name || rule.ruleId}”`).join(', ')}.`}
      </p>
    </>
  );
}

function OutcomeDiff({ outcome }: { outcome: Outcome }) {
  const request = (outcome.request ?? {}) as CaseRequest;
  return (
    <li class="outcome-diff">
      <h4>
        “{outcome.case}” of the suite “{outcome.suite}”:{' '}
        <code>
          {request.method ?? 'GET'} {request.url ?? ''}
        </code>
      </h4>
      <div class="columns">
        <div>
          <h5>Before</h5>
          <Trace trace={outcome.before as CaseTrace | null} request={request} />
        </div>
        <div>
          <h5>After</h5>
          <Trace trace={outcome.after as CaseTrace | null} request={request} />
        </div>
      </div>
    </li>
  );
}

export function EvidenceView({
  evidence,
  names,
  operations,
}: {
  evidence: Evidence;
  names: Names;
  /** The change request's operations: a rule it creates is called `new:N` (N its operation's index). */
  operations: ChangeOperation[];
}) {
  if (evidence.status === 'pending')
    return (
      <p class="notice" role="status" aria-busy="true">
        Computing what this change would do (lint, test suites, traces, browser)… This page shows it as soon
        as it is ready.
      </p>
    );
  if (evidence.status === 'failed')
    return (
      <p class="error">
        What this change would do could not be worked out
        {evidence.reason
          ? // The reason may point into the operations: said as people count them.
            `: ${evidence.reason.replace(/\/operations\/\d+[^\s:]*/g, (pointer) => pointerWords(pointer))}`
          : '.'}
      </p>
    );
  const added = (evidence.lint?.added ?? []) as Finding[];
  const removed = (evidence.lint?.removed ?? []) as Finding[];
  const tests = evidence.tests ?? [];
  const outcomes = evidence.outcomes ?? [];
  const browser = evidence.browser ?? [];
  const ruleName = (ruleId: string) => {
    const created = /^new:(\d+)$/.exec(ruleId);
    const name = created ? operations[Number(created[1])]?.body?.name : names.get(nameKey('rule', ruleId));
    if (typeof name === 'string' && name !== '') return `${created ? 'The new rule ' : ''}“${name}”`;
    return created ? 'A new rule' : `The rule ${ruleId}`;
  };
  return (
    <>
      {evidence.revision !== undefined ? (
        <p class="hint">Worked out against the workspace at revision {evidence.revision}.</p>
      ) : null}
      <h3>Lint findings</h3>
      <h4>It adds</h4>
      <Findings findings={added} empty="It adds no lint finding." />
      <h4>It removes</h4>
      <Findings findings={removed} empty="It removes no lint finding." />

      <h3>Test suites</h3>
      {tests.length === 0 ? <p class="empty">No test suite is kept in this workspace.</p> : null}
      <ul class="suites">
        {tests.map((suite) => (
          <li key={suite.suite}>
            <p>
              <strong>“{suite.suite}”</strong>: before, {tally(suite.before)}; after, {tally(suite.after)}.
            </p>
            {suite.changed.length ? (
              <ul>
                {suite.changed.map((c) => (
                  <li key={c.case} class={c.after === 'fail' ? 'failed' : 'passed'}>
                    “{c.case}” {c.after === 'fail' ? 'starts failing' : 'starts passing'}
                  </li>
                ))}
              </ul>
            ) : (
              <p class="hint">No case changes its result.</p>
            )}
          </li>
        ))}
      </ul>

      <h3>Requests whose outcome changes</h3>
      {outcomes.length === 0 ? (
        <p class="empty">No request of the test suites is handled differently.</p>
      ) : (
        <ul class="outcome-diffs">
          {outcomes.map((outcome) => (
            <OutcomeDiff key={`${outcome.suite} ${outcome.case}`} outcome={outcome} />
          ))}
        </ul>
      )}

      <h3>In the browser</h3>
      {browser.length === 0 ? (
        <p class="empty">No rule changes how it runs in the browser extension.</p>
      ) : (
        <ul>
          {browser.map((entry) => (
            <li key={entry.ruleId}>
              {ruleName(entry.ruleId)} {browserWords(entry.before)} before, and {browserWords(entry.after)}{' '}
              after.
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
