// A saved rule's versions, newest first, each restorable: a bad change is undone by making an
// earlier content current again (as a new version, so nothing is lost by restoring either).
import { useContext, useEffect, useState } from 'preact/hooks';
import type { paths } from '../api.js';
import { LiveContext } from '../live-context.js';
import { describeError, useApi } from '../session.js';

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
        {(versions ?? []).map((entry, index) => (
          <li key={entry.version}>
            <span>
              <strong>Version {entry.version}</strong>: {entry.change} {new Date(entry.at).toLocaleString()}{' '}
              by {entry.byName ?? entry.by}. Named “{entry.object.name}”, {entry.object.status.toLowerCase()},{' '}
              {entry.object.pairs.length} {entry.object.pairs.length === 1 ? 'pair' : 'pairs'}.
            </span>
            {index === 0 ? (
              <span class="tag">current</span>
            ) : (
              <button type="button" class="secondary small" onClick={() => restore(entry.version)}>
                Restore version {entry.version}
              </button>
            )}
          </li>
        ))}
      </ol>
    </section>
  );
}
