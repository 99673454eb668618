// A saved rule's versions, newest first, each with who made it and what it changed from the one
// before, and restorable: a bad change is undone by making an earlier content current again (as a
// new version, so nothing is lost by restoring either). Restoring is offered to those who may write.
import { useContext, useEffect, useState } from 'preact/hooks';
import type { paths } from '../api.js';
import { LiveContext } from '../live-context.js';
import { describeError, useApi, useSession } from '../session.js';
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
  onRestored: () => void;
}) {
  const api = useApi();
  const { canWrite } = useSession();
  const changes = useContext(LiveContext);
  const [versions, setVersions] = useState<Version[] | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    api((client) => client.GET('/v1/rules/{ruleId}/versions', { params: { path: { ruleId } } }))
      .then((answer) => setVersions(answer.data))
      .catch((failure) => setError(describeError(failure)));
  }, [api, ruleId, revision, changes]);

  async function restore(version: number) {
    try {
      await api((client) =>
        client.POST('/v1/rules/{ruleId}/restore', { params: { path: { ruleId } }, body: { version } }),
      );
      setError(null);
      onRestored();
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
                  <button type="button" class="secondary small" onClick={() => restore(entry.version)}>
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
    </section>
  );
}

function Diff({ changes, version }: { changes: FieldChange[]; version: number }) {
  if (changes.length === 0) return <p class="diff-none">No change to the rule itself.</p>;
  return (
    <div class="table-wrap">
      <table class="diff">
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
              <td>{before === undefined ? <span class="absent">(not set)</span> : <del>{before}</del>}</td>
              <td>{after === undefined ? <span class="absent">(removed)</span> : <ins>{after}</ins>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
