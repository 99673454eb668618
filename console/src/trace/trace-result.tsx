// What POST /v1/trace answered, in the order a person asks: what happens to my request (each change,
// with the rule that made it), which rules acted (first, highlighted), and, folded, why each other
// rule did not act, down to the check that failed.
import { useState } from 'preact/hooks';
import { type Change, changesOf, type HeaderValues, type TraceData } from './trace-changes.js';

export type { TraceData, TraceRequest } from './trace-changes.js';

type Verdict = TraceData['rules'][number];

const REASONS: Record<Verdict['reason'], string> = {
  acted: 'Acted on the request.',
  no_pair_matched: 'Did not act: no pair matched.',
  inactive: 'Did not act: the rule is inactive.',
  group_inactive: 'Did not act: its group is inactive.',
  overridden: 'Did not act: another rule of the same kind came first.',
  cancelled: 'Did not act: a Cancel rule cancelled the request.',
  after_redirect: 'Did not act: an earlier rule redirected the request.',
  no_change: 'Did not act: it matched, but would change nothing.',
  invalid_in_environment: "Did not act: its variables make it invalid in this trace's environment.",
};

/** How a reason is counted in the folded list's heading ("3 did not match, 1 inactive"). */
const REASON_COUNTS: Record<Verdict['reason'], string> = {
  acted: 'acted',
  no_pair_matched: 'did not match',
  inactive: 'inactive',
  group_inactive: 'in an inactive group',
  overridden: 'overridden',
  cancelled: 'cancelled with the request',
  after_redirect: 'after a redirect',
  no_change: 'would change nothing',
  invalid_in_environment: 'invalid in this environment',
};

/** The id prefix of an unsaved rule tried from the editor (`inline:0`): it has no page to link to. */
const INLINE = 'inline:';

/** A long body is shown in part: the summary is read, not scrolled. */
const PREVIEW = 400;
const preview = (text: string) => (text.length > PREVIEW ? `${text.slice(0, PREVIEW)}…` : text);

function By({ rules }: { rules: string[] }) {
  if (rules.length === 0) return null;
  return (
    <span class="by">
      {' '}
      (by{' '}
      {rules.map((name, i) => (
        <span key={name}>
          {i ? ', ' : ''}“{name}”
        </span>
      ))}
      )
    </span>
  );
}

function Body({ text }: { text: string }) {
  return <pre class="preview">{preview(text) || '(empty)'}</pre>;
}

const RESPONSE_HEADER: Record<string, string> = { Add: 'added', Modify: 'changed', Remove: 'removed' };

function ChangeItem({ change }: { change: Change }) {
  switch (change.kind) {
    case 'cancelled':
      return (
        <li>
          <strong>Cancelled:</strong> the request is never sent.
          <By rules={change.by} />
        </li>
      );
    case 'delay':
      return (
        <li>
          <strong>Delayed</strong> by {change.ms} ms before it is sent.
          <By rules={change.by} />
        </li>
      );
    case 'url':
      return (
        <li>
          <strong>Redirected:</strong> <code>{change.before}</code> → <code>{change.after}</code>
          <By rules={change.by} />
        </li>
      );
    case 'request-header':
      return (
        <li>
          <strong>Request header {change.change}:</strong> <code>{change.name}</code>
          {change.change === 'added' ? (
            <>
              : <code>{change.after}</code>
            </>
          ) : null}
          {change.change === 'changed' ? (
            <>
              : <code>{change.before}</code> → <code>{change.after}</code>
            </>
          ) : null}
          {change.change === 'removed' ? (
            <>
              {' '}
              (was <code>{change.before}</code>)
            </>
          ) : null}
          <By rules={change.by} />
        </li>
      );
    case 'response-header':
      return (
        <li>
          <strong>Response header {RESPONSE_HEADER[change.change]}:</strong> <code>{change.name}</code>
          {change.change === 'Add' ? (
            <>
              : <code>{change.value}</code>
            </>
          ) : null}
          {change.change === 'Modify' ? (
            <>
              {' '}
              → <code>{change.value}</code>, when the server sends it
            </>
          ) : null}
          <By rules={change.by} />
        </li>
      );
    case 'response':
      return (
        <li>
          <strong>Response:</strong> {change.status}
          {change.statusText ? ` ${change.statusText}` : ''}
          {change.code
            ? ', its body computed by the rule’s code from the server’s answer'
            : change.withoutRequest
              ? `, ${change.contentType}, served without contacting the server`
              : ', the server’s body replaced (the server’s content type stays)'}
          <By rules={change.by} />
          <Body text={change.body} />
        </li>
      );
    case 'request-body':
      return (
        <li>
          <strong>Request body:</strong>{' '}
          {change.code ? 'computed by the rule’s code from the body sent' : 'replaced with'}
          <By rules={change.by} />
          <Body text={change.body} />
        </li>
      );
    case 'script':
      return (
        <li>
          <strong>Script added to the page:</strong> {change.codeType === 'css' ? 'CSS' : 'JavaScript'}{' '}
          {change.type === 'url' ? (
            <>
              from <code>{change.value}</code>
            </>
          ) : (
            'code'
          )}
          , {change.loadTime === 'beforePageLoad' ? 'before' : 'after'} the page loads
          <By rules={change.by} />
          {change.type === 'url' ? null : <Body text={change.value} />}
        </li>
      );
  }
}

/** The changes in a list; "nothing changes" said as plainly when no rule acts. */
export function TraceSummary({ trace, sentHeaders }: { trace: TraceData; sentHeaders?: HeaderValues }) {
  const changes = changesOf(trace, sentHeaders);
  return (
    <ul class="outcome" data-testid="trace-outcome">
      {changes.length === 0 ? <li>No rule changes this request: it is sent as it is.</li> : null}
      {changes.map((change, i) => (
        <ChangeItem key={i} change={change} />
      ))}
    </ul>
  );
}

function Checks({ rule }: { rule: Verdict }) {
  if (rule.pairs.length === 0) return null;
  return (
    <ul class="pairs">
      {rule.pairs.map((pair) => (
        <li key={pair.index}>
          Pair {pair.index + 1}: {pair.matched ? 'matched' : 'did not match'}
          <ul>
            {pair.checks.map((check) => (
              <li key={check.check + check.detail} class={check.passed ? 'passed' : 'failed'}>
                <span class="visually-hidden">{check.passed ? 'Passed: ' : 'Failed: '}</span>
                <span aria-hidden="true">{check.passed ? '✓ ' : '✗ '}</span>
                {check.check}: {check.detail}
              </li>
            ))}
            {typeof pair.effect?.unchanged === 'string' ? (
              <li>It would change nothing: {pair.effect.unchanged}</li>
            ) : null}
            {typeof pair.effect?.error === 'string' ? (
              <li class="failed">Not applied: {pair.effect.error}</li>
            ) : null}
          </ul>
        </li>
      ))}
    </ul>
  );
}

function RuleVerdict({ rule, names }: { rule: Verdict; names: Map<string, string> }) {
  return (
    <li class={rule.acted ? 'acted' : 'not-acted'}>
      <p>
        <strong>
          {/* A saved rule links to its editor: the reason it did not act is read next to the fix. */}
          {rule.ruleId.startsWith(INLINE) ? (
            rule.name || rule.ruleId
          ) : (
            <a href={`#/rules/${encodeURIComponent(rule.ruleId)}`}>{rule.name || rule.ruleId}</a>
          )}
        </strong>{' '}
        <span class="tag">{rule.ruleType}</span>{' '}
        <span class="reason">{REASONS[rule.reason] ?? rule.reason}</span>
        {rule.overriddenBy ? <span> (by “{names.get(rule.overriddenBy) ?? rule.overriddenBy}”)</span> : null}
      </p>
      {rule.acted ? (
        <details>
          <summary>Why it matched</summary>
          <Checks rule={rule} />
        </details>
      ) : (
        <Checks rule={rule} />
      )}
    </li>
  );
}

/** "3 rules did not match", or "4 rules did not act (3 did not match, 1 inactive)". */
export function notActedHeading(rules: readonly Verdict[]): string {
  const counts = new Map<string, number>();
  for (const rule of rules) counts.set(rule.reason, (counts.get(rule.reason) ?? 0) + 1);
  const noun = rules.length === 1 ? 'rule' : 'rules';
  if (counts.size === 1 && counts.has('no_pair_matched')) return `${rules.length} ${noun} did not match`;
  const parts = [...counts].map(
    ([reason, n]) => `${n} ${REASON_COUNTS[reason as Verdict['reason']] ?? reason}`,
  );
  return `${rules.length} ${noun} did not act (${parts.join(', ')})`;
}

export function TraceResult({ trace, sentHeaders }: { trace: TraceData; sentHeaders?: HeaderValues }) {
  const [open, setOpen] = useState(false);
  const acted = trace.rules.filter((rule) => rule.acted);
  const others = trace.rules.filter((rule) => !rule.acted);
  const names = new Map(trace.rules.map((rule) => [rule.ruleId, rule.name || rule.ruleId]));
  return (
    <section class="trace-result" aria-label="Trace result">
      <h3>What happens to the request</h3>
      <TraceSummary trace={trace} {...(sentHeaders ? { sentHeaders } : {})} />
      {trace.warnings?.length ? (
        <ul class="hint">
          {trace.warnings.map((warning) => (
            <li key={warning.path + warning.message}>Converted as an import would: {warning.message}</li>
          ))}
        </ul>
      ) : null}
      <h3>
        {acted.length === 0
          ? 'No rule acted'
          : acted.length === 1
            ? 'The rule that acted'
            : `The ${acted.length} rules that acted`}
      </h3>
      {trace.rules.length === 0 ? <p>No rules were evaluated: there are none to try.</p> : null}
      <ol class="trace-rules">
        {acted.map((rule) => (
          <RuleVerdict key={rule.ruleId} rule={rule} names={names} />
        ))}
      </ol>
      {others.length ? (
        <details class="not-acted-rules" onToggle={(event) => setOpen(event.currentTarget.open)}>
          <summary>{notActedHeading(others)}</summary>
          {/* Drawn when opened: a workspace of a thousand rules lists a thousand reasons. */}
          {open ? (
            <ol class="trace-rules">
              {others.map((rule) => (
                <RuleVerdict key={rule.ruleId} rule={rule} names={names} />
              ))}
            </ol>
          ) : null}
        </details>
      ) : null}
      <details>
        <summary>The outcome as the API answered it</summary>
        <pre>{JSON.stringify(trace.outcome, null, 2)}</pre>
      </details>
    </section>
  );
}
