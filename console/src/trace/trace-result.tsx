// What POST /v1/trace answered: first what happens to the request, then, rule by rule, whether it
// acted and why, down to each check of each pair.
import type { paths } from '../api.js';

export type TraceData = paths['/v1/trace']['post']['responses'][200]['content']['application/json']['data'];
export type TraceRequest = paths['/v1/trace']['post']['requestBody']['content']['application/json'];

const REASONS: Record<string, string> = {
  acted: 'Acted on the request.',
  no_pair_matched: 'Did not act: no pair matched.',
  inactive: 'Did not act: the rule is inactive.',
  group_inactive: 'Did not act: its group is inactive.',
  overridden: 'Did not act: another rule of the same kind came first.',
  cancelled: 'Did not act: a Cancel rule cancelled the request.',
  after_redirect: 'Did not act: an earlier rule redirected the request.',
  no_change: 'Did not act: it matched, but would change nothing.',
};

/** The outcome in sentences: what a person asks first ("what happens to my request?"). */
export function outcomeSentences(trace: TraceData): string[] {
  const { outcome, request } = trace;
  const said: string[] = [];
  if (outcome.cancelled) said.push('The request is cancelled.');
  if (outcome.redirected) said.push(`The request is redirected to ${outcome.url}`);
  else if (outcome.url !== request.url) said.push(`The request goes to ${outcome.url}`);
  if (outcome.delayMs > 0) said.push(`The request is delayed by ${outcome.delayMs} ms.`);
  if (outcome.response) said.push('The response is replaced.');
  if (outcome.requestBody) said.push('The request body is replaced.');
  if (outcome.responseHeaders.length) said.push('Response headers are changed.');
  if (outcome.scripts.length) said.push(`${outcome.scripts.length} script(s) are added to the page.`);
  const acted = trace.rules.filter((rule) => rule.acted).length;
  if (!said.length)
    said.push(acted ? 'The request is changed (see the details).' : 'No rule changes this request.');
  return said;
}

export function TraceResult({ trace }: { trace: TraceData }) {
  return (
    <section class="trace-result" aria-label="Trace result">
      <h3>Outcome</h3>
      <ul class="outcome" data-testid="trace-outcome">
        {outcomeSentences(trace).map((sentence) => (
          <li key={sentence}>{sentence}</li>
        ))}
      </ul>
      <details>
        <summary>The outcome as the API answered it</summary>
        <pre>{JSON.stringify(trace.outcome, null, 2)}</pre>
      </details>
      <h3>Rule by rule</h3>
      {trace.rules.length === 0 ? <p>No rules were evaluated.</p> : null}
      <ol class="trace-rules">
        {trace.rules.map((rule) => (
          <li key={rule.ruleId} class={rule.acted ? 'acted' : 'not-acted'}>
            <p>
              <strong>{rule.name || rule.ruleId}</strong> <span class="tag">{rule.ruleType}</span>{' '}
              <span class="reason">{REASONS[rule.reason] ?? rule.reason}</span>
              {rule.overriddenBy ? <span> (by {rule.overriddenBy})</span> : null}
            </p>
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
                  </ul>
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ol>
    </section>
  );
}
