// Rules deleted lately, newest first, each restored with a click (as it was when deleted). The API
// lists no deleted rules: the change feed says which rules were deleted in the workspace's last
// changes, and each one's kept versions say what it was.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, type paths, type Rule } from '../api.js';
import { hrefFor } from '../route.js';
import { describeError, useApi } from '../session.js';
import { RelativeTime } from '../ui/relative-time.js';
import { restoreDeleted } from './bulk-actions.js';
import { sourceSummary } from './source-summary.js';

type Version =
  paths['/v1/rules/{ruleId}/versions']['get']['responses'][200]['content']['application/json']['data'][number];

/** How far back "recently" reaches, in workspace revisions (one per write, or per import). */
export const RECENT_REVISIONS = 1000;
/** At most this many are shown (each costs one read of its history). */
const SHOWN = 50;
const FEED_PAGES = 20;

type Api = ReturnType<typeof useApi>;

async function currentRevision(api: Api): Promise<number> {
  let revision = 0;
  await api(
    (client) => client.GET('/v1/whoami', {}),
    (response) => {
      revision = Number(response.headers.get('rulekeeper-revision') ?? 0);
    },
  );
  return revision;
}

/** Ids of the rules whose last change among the recent ones is their deletion, newest first. */
async function recentlyDeletedIds(api: Api): Promise<string[]> {
  const latest = await currentRevision(api);
  let window = RECENT_REVISIONS;
  let after = Math.max(0, latest - window);
  const last = new Map<string, { change: string; revision: number }>();
  for (let page = 0; page < FEED_PAGES; page += 1) {
    let answer: Awaited<ReturnType<typeof readFeed>>;
    try {
      answer = await readFeed(api, after);
    } catch (failure) {
      // Changes that far back are no longer kept: look at a shorter stretch.
      if (failure instanceof ApiError && failure.status === 410 && window > 1 && page === 0) {
        window = Math.floor(window / 2);
        after = Math.max(0, latest - window);
        page -= 1;
        continue;
      }
      throw failure;
    }
    for (const item of answer.data) {
      if (item.objectType === 'rule') last.set(item.id, { change: item.change, revision: item.revision });
    }
    if (answer.data.length === 0 || answer.nextAfter >= latest) break;
    after = answer.nextAfter;
  }
  return [...last]
    .filter(([, state]) => state.change === 'deleted')
    .sort((a, b) => b[1].revision - a[1].revision)
    .map(([id]) => id);
}

const readFeed = (api: Api, after: number) =>
  api((client) => client.GET('/v1/changes', { params: { query: { after: String(after), limit: '1000' } } }));

export function DeletedPage() {
  const api = useApi();
  const [deleted, setDeleted] = useState<Version[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [restored, setRestored] = useState<Rule | null>(null);

  useEffect(() => {
    let current = true;
    (async () => {
      const ids = (await recentlyDeletedIds(api)).slice(0, SHOWN);
      const versions = await Promise.all(
        ids.map((ruleId) =>
          api((client) => client.GET('/v1/rules/{ruleId}/versions', { params: { path: { ruleId } } })).then(
            (answer) => answer.data[0],
            () => undefined, // restored or gone meanwhile
          ),
        ),
      );
      if (current) setDeleted(versions.filter((version) => version?.change === 'deleted') as Version[]);
    })().catch((failure) => current && setError(describeError(failure)));
    return () => {
      current = false;
    };
  }, [api]);

  async function restore(version: Version) {
    try {
      const rule = await restoreDeleted(api, version.object.id);
      setRestored(rule);
      setError(null);
      setDeleted((old) => old?.filter((entry) => entry.object.id !== rule.id) ?? null);
    } catch (failure) {
      setError(`“${version.object.name}” was not restored: ${describeError(failure)}`);
    }
  }

  return (
    <section aria-labelledby="deleted-title">
      <p>
        <a href="#/rules">← All rules</a>
      </p>
      <h1 id="deleted-title">Recently deleted</h1>
      <p class="hint">
        Rules deleted in the workspace’s last {RECENT_REVISIONS.toLocaleString()} changes, newest first.
        Restoring one brings it back as it was when deleted, with the same id.
      </p>
      {restored ? (
        <p class="notice" role="status">
          Restored <a href={hrefFor({ page: 'rule', ruleId: restored.id })}>“{restored.name}”</a>.
        </p>
      ) : null}
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
      {deleted === null && !error ? <p>Loading…</p> : null}
      {deleted?.length === 0 ? <p class="empty">No rule was deleted lately.</p> : null}
      {deleted?.length ? (
        <ul class="rule-list">
          {deleted.map((version) => (
            <li key={version.object.id} class="rule-row">
              <div class="rule-main">
                <span class="rule-name">{version.object.name || '(no name)'}</span>
                <span class="rule-meta">
                  <code class="source">{sourceSummary(version.object)}</code>
                  <span>
                    <RelativeTime at={version.at} prefix="deleted " /> by{' '}
                    {version.byName ?? `user ${version.by}`}
                  </span>
                </span>
              </div>
              <span class="tag">{version.object.ruleType}</span>
              <button type="button" class="secondary small" onClick={() => restore(version)}>
                Restore {version.object.name || version.object.id}
              </button>
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}
