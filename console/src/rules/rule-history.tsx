// A saved rule's versions, newest first, each with who made it and what it changed from the one
// before, and restorable: a bad change is undone by making an earlier content current again (as a
// new version, so nothing is lost by restoring either). Restoring is offered to those who may write.
// A restore sets the status the version had: when that switches the rule on, it is asked first, in
// words, since the rule then acts on requests again. The service records a restore as "updated"; the
// notice after it says which version it came from.
import { useContext, useEffect, useState } from 'preact/hooks';
import type { paths } from '../api.js';
import { LiveContext } from '../live-context.js';
import { describeError, useApi, useSession } from '../session.js';
import { ConfirmDialog } from '../ui/confirm.js';
import { RelativeTime } from '../ui/relative-time.js';
import { type FieldChange, versionDiff } from './version-diff.js';

type Version =
  paths['/v1/rules/{ruleId}/versions']['get']['responses'][200]['content']['application/json']['data'][number];

export function RuleHistory({
  ruleId,
  revision,
  onRestored,
}: {
  ruleId: string;
  revision: string | null;
  /** Told the version restored and the status it set. */
  onRestored: (version: number, status: string) => void;
}) {
  const api = useApi();
  const { canWrite } = useSession();
  const changes = useContext(LiveContext);
  const [versions, setVersions] = useState<Version[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  // The version whose restore would switch the rule on, while that is asked.
  const [asking, setAsking] = useState<Version | null>(null);

  useEffect(() => {
    api((client) => client.GET('/v1/rules/{ruleId}/versions', { params: { path: { ruleId } } }))
      .then((answer) => setVersions(answer.data))
      .catch((failure) => setError(describeError(failure)));
  }, [api, ruleId, revision, changes]);

  async function restore(version: number) {
    setAsking(null);
    try {
      const restored = await api((client) =>
        client.POST('/v1/rules/{ruleId}/restore', { params: { path: { ruleId } }, body: { version } }),
      );
      setError(null);
      onRestored(version, restored.data.status);
    } catch (failure) {
      setError(`Version ${version} was not restored: ${describeError(failure)}`);
    }
  }

  return (
    <section class="history" aria-labelledby="history-title">
      <h2 id="history-title">History</h2>
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
      {versions === null ? <p>Loading…</p> : null}
      <ol class="versions">
        {(versions ?? []).map((entry, index) => {
          const older = versions?.[index + 1];
          return (
            <li key={entry.version}>
              <div class="version-head">
                <span>
                  <strong>Version {entry.version}</strong>: {entry.change} <RelativeTime at={entry.at} /> by{' '}
                  <span class="who">{entry.byName ?? `user ${entry.by}`}</span>. Named “{entry.object.name}”,{' '}
                  {entry.object.status.toLowerCase()}, {entry.object.pairs.length}{' '}
                  {entry.object.pairs.length === 1 ? 'pair' : 'pairs'}.
                </span>
                {index === 0 ? (
                  <span class="tag">current</span>
                ) : !canWrite ? null : (
                  <button
                    type="button"
                    class="secondary small"
                    onClick={() =>
                      // Switching a rule on is asked first; the current version is the first entry.
                      entry.object.status === 'Active' && versions?.[0]?.object.status !== 'Active'
                        ? setAsking(entry)
                        : restore(entry.version)
                    }
                  >
                    Restore version {entry.version}
                  </button>
                )}
              </div>
              {older ? (
                <Diff changes={versionDiff(older.object, entry.object)} version={entry.version} />
              ) : null}
            </li>
          );
        })}
      </ol>
      {asking ? (
        <ConfirmDialog
          title={`Restore version ${asking.version} and switch the rule on?`}
          confirmLabel="Restore and switch on"
          onConfirm={() => restore(asking.version)}
          onCancel={() => setAsking(null)}
        >
          <p>
            The rule is inactive now. Version {asking.version} was active, so restoring it sets the status to
            Active: the rule acts on matching requests again at once.
          </p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}

function Diff({ changes, version }: { changes: FieldChange[]; version: number }) {
  if (changes.length === 0) return <p class="diff-none">No change to the rule itself.</p>;
  return (
    <div class="table-wrap">
      <table class="diff cards">
        <caption class="visually-hidden">What version {version} changed</caption>
        <thead>
          <tr>
            <th scope="col">Changed</th>
            <th scope="col">Was</th>
            <th scope="col">Now</th>
          </tr>
        </thead>
        <tbody>
          {changes.map(({ field, before, after }) => (
            <tr key={field}>
              <th scope="row">{field}</th>
              <td data-label="Was">
                {before === undefined ? <span class="absent">(not set)</span> : <del>{before}</del>}
              </td>
              <td data-label="Now">
                {after === undefined ? <span class="absent">(removed)</span> : <ins>{after}</ins>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
