// The workspace's test suites: `rulekeeper test` cases kept by name. Anyone may list them and run one
// (each case passed or failed, with what differed); an editor writes a suite as JSON in the editor the
// rules use, and the API's problems are marked at their lines and said in words (cases counted from 1).
import { useCallback, useEffect, useState } from 'preact/hooks';
import { ApiError, type paths, type Schemas } from '../api.js';
import { JsonView } from '../rules/json-view.js';
import { describeError, useApi, useSession } from '../session.js';
import { ConfirmDialog } from '../ui/confirm.js';
import { ErrorSummary } from '../ui/error-summary.js';
import { ReadOnlyNote } from '../ui/read-only-note.js';

type Suite = Schemas['TestSuiteListItem'];
type Run = Schemas['TestSuiteRun'];
type SuiteBody = NonNullable<paths['/v1/test-suites']['post']['requestBody']>['content']['application/json'];

/** What a new suite starts from: one case to copy, in the format of a `rulekeeper test` file. */
const NEW_SUITE = {
  name: '',
  cases: [
    {
      name: 'checkout goes to staging',
      request: { url: 'https://shop.example.com/checkout' },
      expect: { url: 'https://staging.example.com/checkout', redirected: true },
    },
  ],
};

const SUITE_JSON = {
  label: 'The suite as JSON',
  id: 'suite-json',
  hint: 'A name and the cases of a rulekeeper test file: each with a name, a request and what to expect. Problems are marked at their lines.',
  readOnlyHint: 'The suite as the API holds it.',
  shape: 'A suite is a JSON object: {"name": …, "cases": […]}.',
};

/** The suite being written: a new one, or one read whole (the list has no cases). */
type Editing = { id: string | null; value: unknown };

export function TestSuitesPage() {
  const api = useApi();
  const { canWrite } = useSession();
  const [suites, setSuites] = useState<Suite[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [editing, setEditing] = useState<Editing | null>(null);
  const [deleting, setDeleting] = useState<Suite | null>(null);
  const [run, setRun] = useState<Run | null>(null);
  const [running, setRunning] = useState<string | null>(null);

  const reload = useCallback(() => {
    api((client) => client.GET('/v1/test-suites', { params: { query: {} } }))
      .then((answer) => setSuites(answer.data))
      .catch((failure) => {
        setSuites((old) => old ?? []);
        setError(`Loading the suites failed: ${describeError(failure)}`);
      });
  }, [api]);
  useEffect(reload, [reload]);

  async function edit(suite: Suite) {
    try {
      const { data } = await api((client) =>
        client.GET('/v1/test-suites/{suiteId}', { params: { path: { suiteId: suite.id } } }),
      );
      setEditing({ id: suite.id, value: { name: data.name, cases: data.cases } });
      setError(null);
    } catch (failure) {
      setError(`Opening “${suite.name}” failed: ${describeError(failure)}`);
    }
  }

  async function start(suite: Suite) {
    setRunning(suite.id);
    setRun(null);
    try {
      const { data } = await api((client) =>
        client.POST('/v1/test-suites/{suiteId}/run', { params: { path: { suiteId: suite.id } } }),
      );
      setRun(data);
      setError(null);
    } catch (failure) {
      setError(`Running “${suite.name}” failed: ${describeError(failure)}`);
    } finally {
      setRunning(null);
    }
  }

  async function remove(suite: Suite) {
    try {
      await api((client) =>
        client.DELETE('/v1/test-suites/{suiteId}', { params: { path: { suiteId: suite.id } } }),
      );
      if (run?.suite.id === suite.id) setRun(null);
      setError(null);
    } catch (failure) {
      setError(`Deleting “${suite.name}” failed: ${describeError(failure)}`);
    }
    reload();
  }

  return (
    <section aria-labelledby="suites-title">
      <div class="page-head">
        <h1 id="suites-title">Test suites</h1>
        {canWrite && !editing ? (
          <button type="button" onClick={() => setEditing({ id: null, value: NEW_SUITE })}>
            New suite
          </button>
        ) : null}
      </div>
      <p>
        What the rules must do, case by case, as <code>rulekeeper test</code> checks it; kept here so that
        everyone runs the same cases (<code>rulekeeper test --suite NAME</code> runs one from CI).
      </p>
      {canWrite ? null : <ReadOnlyNote can="view and run test suites" />}
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
      {editing ? (
        <SuiteEditor
          key={editing.id ?? 'new'}
          editing={editing}
          onSaved={() => {
            setEditing(null);
            reload();
          }}
          onCancel={() => setEditing(null)}
        />
      ) : null}
      {suites === null ? <p>Loading…</p> : null}
      {suites?.length === 0 ? <p class="empty">No test suites yet.</p> : null}
      <ul class="group-list suite-list">
        {(suites ?? []).map((suite) => (
          <li key={suite.id} class="group-row">
            <span class="group-name">{suite.name}</span>
            <span class="count">
              {suite.caseCount} {suite.caseCount === 1 ? 'case' : 'cases'}
            </span>
            <button
              type="button"
              class="small"
              aria-label={`Run ${suite.name}`}
              disabled={running !== null}
              onClick={() => start(suite)}
            >
              {running === suite.id ? 'Running…' : 'Run'}
            </button>
            {canWrite ? (
              <>
                <button
                  type="button"
                  class="secondary small"
                  aria-label={`Edit ${suite.name}`}
                  onClick={() => edit(suite)}
                >
                  Edit
                </button>
                <button
                  type="button"
                  class="danger small"
                  aria-label={`Delete ${suite.name}`}
                  onClick={() => setDeleting(suite)}
                >
                  Delete
                </button>
              </>
            ) : null}
          </li>
        ))}
      </ul>
      {run ? <RunReport run={run} /> : null}
      {deleting ? (
        <ConfirmDialog
          title={`Delete the test suite “${deleting.name}”?`}
          confirmLabel="Delete suite"
          onCancel={() => setDeleting(null)}
          onConfirm={() => {
            const suite = deleting;
            setDeleting(null);
            void remove(suite);
          }}
        >
          <p>
            Its {deleting.caseCount === 1 ? 'case goes' : `${deleting.caseCount} cases go`} with it; the rules
            are not touched.
          </p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}

/** A suite written as JSON; saved as a new suite or over the one read. */
function SuiteEditor({
  editing,
  onSaved,
  onCancel,
}: {
  editing: Editing;
  onSaved: () => void;
  onCancel: () => void;
}) {
  const api = useApi();
  const [value, setValue] = useState<unknown>(editing.value);
  const [failure, setFailure] = useState<ApiError | string | null>(null);
  const [saving, setSaving] = useState(false);

  async function save(event: Event) {
    event.preventDefault();
    setSaving(true);
    // The editor's text, as the API checks it: a field it does not know is its to refuse.
    const body = value as SuiteBody;
    try {
      const { id } = editing;
      await api((client) =>
        id === null
          ? client.POST('/v1/test-suites', { body })
          : client.PUT('/v1/test-suites/{suiteId}', { params: { path: { suiteId: id } }, body }),
      );
      setFailure(null);
      onSaved();
    } catch (error) {
      setFailure(error instanceof ApiError ? error : describeError(error));
    } finally {
      setSaving(false);
    }
  }

  const title = editing.id === null ? 'New test suite' : 'Edit test suite';
  return (
    <form class="suite-editor" aria-labelledby="suite-editor-title" onSubmit={save} noValidate>
      <h2 id="suite-editor-title">{title}</h2>
      <ErrorSummary error={failure} title="The suite was not saved." />
      <JsonView
        value={editing.value}
        onChange={setValue}
        problems={failure instanceof ApiError ? failure.details : []}
        what={SUITE_JSON}
      />
      <div class="actions">
        <button type="submit" disabled={saving}>
          {saving ? 'Saving…' : 'Save suite'}
        </button>
        <button type="button" class="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

/** A run: the totals, then each case, with what differed for each that failed. */
function RunReport({ run }: { run: Run }) {
  return (
    <section class="suite-run" aria-labelledby="suite-run-title" aria-live="polite">
      <h2 id="suite-run-title">Run of “{run.suite.name}”</h2>
      <p class={run.failed > 0 ? 'run-totals failed' : 'run-totals passed'}>
        {run.passed} passed, {run.failed} failed
      </p>
      <ul class="case-results">
        {run.cases.map((result, index) => (
          // Names may repeat: the position is the case's.
          <li key={`${index} ${result.name}`} class={result.passed ? 'case passed' : 'case failed'}>
            <span class="verdict">{result.passed ? 'Passed' : 'Failed'}</span>{' '}
            <span class="case-name">{result.name}</span>
            {result.problems.length ? (
              <ul class="problems">
                {result.problems.map((problem) => (
                  <li key={problem}>
                    <code>{problem}</code>
                  </li>
                ))}
              </ul>
            ) : null}
          </li>
        ))}
      </ul>
    </section>
  );
}
