// The workspace's deleted rules that can be restored, most recently deleted first (GET
// /v1/rules/deleted), each restored with a click as it was when deleted (by those who may write).
import { useEffect, useState } from 'preact/hooks';
import type { Rule, Schemas } from '../api.js';
import { hrefFor } from '../route.js';
import { describeError, useApi, useSession } from '../session.js';
import { RelativeTime } from '../ui/relative-time.js';
import { sourceSummary } from './source-summary.js';

type Deleted = Schemas['DeletedRule'];

/** Read a page at a time: most people want the last few, and "Show more" reads on. */
const PAGE_SIZE = 50;

export function DeletedPage() {
  const api = useApi();
  const { canWrite } = useSession();
  const [deleted, setDeleted] = useState<Deleted[] | null>(null);
  const [next, setNext] = useState<number | null>(null);
  const [total, setTotal] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const [restored, setRestored] = useState<Rule | null>(null);
  const [busy, setBusy] = useState(false);

  const readPage = (offset: number) =>
    api((client) =>
      client.GET('/v1/rules/deleted', {
        params: { query: { offset: String(offset), pageSize: String(PAGE_SIZE) } },
      }),
    );

  useEffect(() => {
    let current = true;
    readPage(0).then(
      (answer) => {
        if (!current) return;
        setDeleted(answer.data);
        setNext(answer.nextOffset);
        setTotal(answer.total);
      },
      (failure) => current && setError(describeError(failure)),
    );
    return () => {
      current = false;
    };
  }, [api]);

  async function showMore() {
    if (next === null) return;
    setBusy(true);
    try {
      const answer = await readPage(next);
      // A rule deleted meanwhile shifts the pages: one already shown is not shown twice.
      setDeleted((old) => {
        const shown = new Set(old?.map((item) => item.id));
        return [...(old ?? []), ...answer.data.filter((item) => !shown.has(item.id))];
      });
      setNext(answer.nextOffset);
      setTotal(answer.total);
    } catch (failure) {
      setError(describeError(failure));
    } finally {
      setBusy(false);
    }
  }

  async function restore(item: Deleted) {
    try {
      const answer = await api((client) =>
        client.POST('/v1/rules/{ruleId}/restore', {
          params: { path: { ruleId: item.id } },
          body: { version: item.version },
        }),
      );
      setRestored(answer.data);
      setError(null);
      setDeleted((old) => old?.filter((entry) => entry.id !== item.id) ?? null);
      setTotal((old) => old - 1);
    } catch (failure) {
      setError(`“${item.name}” was not restored: ${describeError(failure)}`);
    }
  }

  return (
    <section aria-labelledby="deleted-title">
      <p>
        <a href="#/rules">← All rules</a>
      </p>
      <h1 id="deleted-title">Recently deleted</h1>
      <p class="hint">
        The workspace’s deleted rules, most recently deleted first, while their history is kept. Restoring one
        brings it back as it was when deleted, with the same id.
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
          {deleted.map((item) => (
            <li key={item.id} class="rule-row">
              <div class="rule-main">
                <span class="rule-name">{item.name || '(no name)'}</span>
                <span class="rule-meta">
                  <code class="source">{sourceSummary(item.rule)}</code>
                  <span>
                    <RelativeTime at={item.deletedAt} prefix="deleted " /> by{' '}
                    {item.deletedByName ?? `user ${item.deletedBy}`}
                  </span>
                </span>
              </div>
              <span class="tag">{item.ruleType}</span>
              {canWrite ? (
                <button type="button" class="secondary small" onClick={() => restore(item)}>
                  Restore {item.name || item.id}
                </button>
              ) : null}
            </li>
          ))}
        </ul>
      ) : null}
      {next !== null && deleted ? (
        <p>
          <button type="button" class="secondary" onClick={showMore} disabled={busy}>
            Show more ({deleted.length} of {total} shown)
          </button>
        </p>
      ) : null}
    </section>
  );
}
