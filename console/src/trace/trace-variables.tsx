// What a trace says of variables: the environment it ran in, each variable a rule took with the value
// and where it came from (a secret's never shown), and the rules its values made invalid there.
import { pointerWords } from '../forms/labels.js';
import type { TraceData } from './trace-changes.js';

type Verdict = TraceData['rules'][number];

/** The environment and the values the rules took; nothing when no rule took one. */
export function TraceVariables({ trace }: { trace: TraceData }) {
  const invalid = trace.rules.filter((rule) => rule.reason === 'invalid_in_environment');
  if (trace.variables.length === 0 && invalid.length === 0) return null;
  return (
    <>
      <h3>Variables, in the environment {trace.environment}</h3>
      {trace.variables.length ? (
        <ul class="trace-variables">
          {trace.variables.map((variable) => (
            <li key={variable.name}>
              <code>{`{{${variable.name}}}`}</code>{' '}
              {variable.secret || variable.value === undefined ? (
                <>
                  took {variable.environment}'s secret value <span class="hint">(never shown)</span>
                </>
              ) : (
                <>
                  took <code>{variable.value}</code>, its value in {variable.environment}
                </>
              )}
            </li>
          ))}
        </ul>
      ) : null}
      {invalid.length ? (
        <p class="error">
          {invalid.length === 1 ? '1 rule does' : `${invalid.length} rules do`} not act in {trace.environment}
          : {invalid.length === 1 ? 'its' : 'their'} variables' values make{' '}
          {invalid.length === 1 ? 'it' : 'them'} invalid there (see below).
        </p>
      ) : null}
    </>
  );
}

/** Under a rule: the variables it took, and what its values broke (where, in words, never a value). */
export function RuleVariables({ rule }: { rule: Verdict }) {
  return (
    <>
      {rule.variables?.length ? (
        <p class="hint">
          Took{' '}
          {rule.variables.map((name, i) => (
            <span key={name}>
              {i ? ', ' : ''}
              <code>{`{{${name}}}`}</code>
            </span>
          ))}
          .
        </p>
      ) : null}
      {rule.problems?.length ? (
        <ul class="problems">
          {rule.problems.map((problem) => (
            <li key={problem.path + problem.message} class="failed">
              {pointerWords(problem.path)}: {problem.message}
            </li>
          ))}
        </ul>
      ) : null}
    </>
  );
}
