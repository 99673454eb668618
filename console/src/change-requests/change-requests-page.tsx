// The workspace's change requests, newest first: title, author, state and when it last moved,
// filtered by state (open ones first shown), read again when the change stream says something moved.
import { useContext, useEffect, useState } from 'preact/hooks';
import type { ChangeRequestListItem } from '../api.js';
import { LiveContext } from '../live-context.js';
import { describeError, useApi, useSession } from '../session.js';
import { RelativeTime } from '../ui/relative-time.js';
import { STATE_WORDS, type State } from './change-request-words.js';

const PAGE = 50;
type Filter = State | 'all';

export function ChangeRequestsPage() {
  const api = useApi();
  const { userId } = useSession();
  const changes = useContext(LiveContext);
  const [filter, setFilter] = useState<Filter>('open');
  const [items, setItems] = useState<ChangeRequestListItem[] | null>(null);
  const [total, setTotal] = useState(0);
  const [next, setNext] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);

  const read = (offset: number) =>
    api((client) =>
      client.GET('/v1/change-requests', {
        params: {
          query: {
            offset: String(offset),
            pageSize: String(PAGE),
            ...(filter === 'all' ? {} : { state: filter }),
          },
        },
      }),
    );

  useEffect(() => {
    let current = true;
    read(0)
      .then((answer) => {
        if (!current) return;
        setItems(answer.data);
        setTotal(answer.total);
        setNext(answer.nextOffset);
        setError(null);
      })
      .catch((failure) => current && setError(describeError(failure)));
    return () => {
      current = false;
    };
  }, [api, filter, changes]);

  async function more() {
    if (next === null) return;
    try {
      const answer = await read(next);
      setItems((old) => [...(old ?? []), ...answer.data]);
      setNext(answer.nextOffset);
    } catch (failure) {
      setError(describeError(failure));
    }
  }

  return (
    <section aria-labelledby="change-requests-title">
      <h1 id="change-requests-title">Change requests</h1>
      <p>
        Changes to rules and groups proposed for review. Each shows what it would change and what it would do
        before it is merged.
      </p>
      <div class="field inline-filter">
        <label for="change-request-state">Show</label>
        <select
          id="change-request-state"
          value={filter}
          onChange={(e) => {
            setItems(null);
            setFilter(e.currentTarget.value as Filter);
          }}
        >
          <option value="all">All</option>
          {Object.entries(STATE_WORDS).map(([state, words]) => (
            <option key={state} value={state}>
              {words}
            </option>
          ))}
        </select>
      </div>
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
      {items === null && !error ? <p>Loading…</p> : null}
      {items?.length === 0 ? (
        <p class="empty">
          {filter === 'all'
            ? 'No change requests yet.'
            : `No change request is ${STATE_WORDS[filter].toLowerCase()}.`}
        </p>
      ) : null}
      {items?.length ? (
        <div class="table-wrap">
          <table class="change-requests cards">
            <caption class="visually-hidden">
              Change requests ({total} {filter === 'all' ? 'in all' : STATE_WORDS[filter].toLowerCase()})
            </caption>
            <thead>
              <tr>
                <th scope="col">Title</th>
                <th scope="col">Author</th>
                <th scope="col">State</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {items.map((item) => (
                <tr key={item.id}>
                  <th scope="row">
                    <a href={`#/change-requests/${encodeURIComponent(item.id)}`}>{item.title}</a>
                    <small class="hint">
                      {' '}
                      {item.operationCount} {item.operationCount === 1 ? 'operation' : 'operations'}
                    </small>
                  </th>
                  <td data-label="Author">
                    {item.authorName ?? 'someone no longer here'}
                    {item.author === userId ? <span class="tag">you</span> : null}
                  </td>
                  <td data-label="State">
                    <span class={`tag state-${item.state}`}>{STATE_WORDS[item.state]}</span>
                  </td>
                  <td data-label="Updated">
                    <RelativeTime at={item.updatedAt} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {next !== null ? (
        <button type="button" class="secondary" onClick={more}>
          Show more
        </button>
      ) : null}
    </section>
  );
}

/** How many change requests wait for a review: the navigation shows it. */
export function useOpenCount(): number | null {
  const api = useApi();
  const changes = useContext(LiveContext);
  const [count, setCount] = useState<number | null>(null);
  useEffect(() => {
    let current = true;
    const read = () =>
      api((client) =>
        client.GET('/v1/change-requests', { params: { query: { state: 'open', pageSize: '1' } } }),
      )
        .then((answer) => current && setCount(answer.total))
        .catch(() => current && setCount(null));
    read();
    // A change request opened or reviewed elsewhere is no rule change: the stream does not tell it.
    addEventListener('hashchange', read);
    return () => {
      current = false;
      removeEventListener('hashchange', read);
    };
  }, [api, changes]);
  return count;
}
