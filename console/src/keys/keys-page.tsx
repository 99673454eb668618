// API keys: one's own (an admin sees every key of the workspace), made here and shown once, revoked
// after a question. Machines (CI, proxies, the extension) use keys; people sign in.
import { useEffect, useState } from 'preact/hooks';
import type { Schemas } from '../api.js';
import { describeError, useApi, useSession } from '../session.js';
import { ConfirmDialog } from '../ui/confirm.js';
import { RelativeTime } from '../ui/relative-time.js';
import { Said } from '../ui/said.js';
import { type Key, type KeyState, stateOf } from './key-words.js';
import { NewKeyForm } from './new-key-form.js';
import { keySecret, ShownOnce } from './shown-once.js';

const PAGE_SIZE = 100;

export function KeysPage() {
  const api = useApi();
  const session = useSession();
  const [keys, setKeys] = useState<Key[] | null>(null);
  const [next, setNext] = useState<number | null>(null);
  const [total, setTotal] = useState(0);
  const [state, setState] = useState<KeyState | ''>('');
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  // The key just made: in this page's state only, so leaving the page forgets it.
  const [made, setMade] = useState<Schemas['NewKey'] | null>(null);
  const [revoking, setRevoking] = useState<Key | null>(null);
  const [reloads, setReloads] = useState(0);

  const readPage = (offset: number) =>
    api((client) =>
      client.GET('/v1/keys', {
        params: {
          query: { offset: String(offset), pageSize: String(PAGE_SIZE), ...(state ? { state } : {}) },
        },
      }),
    );

  useEffect(() => {
    let current = true;
    readPage(0).then(
      (answer) => {
        if (!current) return;
        setKeys(answer.data);
        setNext(answer.nextOffset);
        setTotal(answer.total);
        setError(null);
      },
      (failure) => current && setError(describeError(failure)),
    );
    return () => {
      current = false;
    };
  }, [api, state, reloads]);

  async function showMore() {
    if (next === null) return;
    try {
      const answer = await readPage(next);
      setKeys((old) => [...(old ?? []), ...answer.data]);
      setNext(answer.nextOffset);
      setTotal(answer.total);
    } catch (failure) {
      setError(describeError(failure));
    }
  }

  async function revoke(key: Key) {
    setRevoking(null);
    try {
      await api((client) => client.DELETE('/v1/keys/{id}', { params: { path: { id: key.id } } }));
      setNotice(`The key “${key.name ?? key.id}” is revoked: it stopped working at once.`);
      setError(null);
    } catch (failure) {
      setNotice(null);
      setError(`The key “${key.name ?? key.id}” was not revoked: ${describeError(failure)}`);
    }
    setReloads((count) => count + 1);
  }

  const mayRevoke = (key: Key) =>
    stateOf(key) === 'active' && (key.user.id === session.userId || session.canAdmin);

  return (
    <section aria-labelledby="keys-title">
      <h1 id="keys-title">Keys</h1>
      <p>
        API keys let machines (CI, a proxy, the extension, scripts) use the API as you, or, as workspace keys,
        as themselves. People sign in instead. A key never does more than its scope, nor more than its owner's
        role.
      </p>
      {made ? (
        <ShownOnce secret={keySecret(made)} onDone={() => setMade(null)} />
      ) : (
        <NewKeyForm
          onMade={(key) => {
            setMade(key);
            setNotice(null);
            setReloads((count) => count + 1);
          }}
        />
      )}
      <h2 id="key-list-title">{session.canAdmin ? 'Keys of the workspace' : 'Your keys'}</h2>
      <Said notice={notice} error={error} />
      <div class="field key-filter">
        <label for="key-state">Show</label>
        <select
          id="key-state"
          value={state}
          onChange={(e) => setState(e.currentTarget.value as KeyState | '')}
        >
          <option value="">Every key</option>
          <option value="active">Active keys</option>
          <option value="revoked">Revoked keys</option>
          <option value="expired">Expired keys</option>
        </select>
      </div>
      {keys === null && !error ? <p>Loading…</p> : null}
      {keys?.length === 0 ? <p class="empty">No keys{state ? ` ${state}` : ''}.</p> : null}
      {keys?.length ? (
        <div class="table-wrap">
          <table class="keys cards">
            <caption class="visually-hidden">
              {session.canAdmin ? 'Keys of the workspace' : 'Your keys'}, oldest first
            </caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Scope</th>
                <th scope="col">Owner</th>
                <th scope="col">Expires</th>
                <th scope="col">State</th>
                <th scope="col">
                  <span class="visually-hidden">Revoke</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.map((key) => (
                <KeyRow
                  key={key.id}
                  item={key}
                  mine={key.user.id === session.userId}
                  inUse={key.id === session.keyId}
                  onRevoke={mayRevoke(key) ? () => setRevoking(key) : null}
                />
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {next !== null && keys ? (
        <p>
          <button type="button" class="secondary" onClick={showMore}>
            Show more ({keys.length} of {total} shown)
          </button>
        </p>
      ) : null}
      {revoking ? (
        <ConfirmDialog
          title={`Revoke the key “${revoking.name ?? revoking.id}”?`}
          confirmLabel="Revoke key"
          onConfirm={() => revoke(revoking)}
          onCancel={() => setRevoking(null)}
        >
          <p>
            Whatever uses it is refused from now on, on every instance. This cannot be undone: a new key would
            have to be made and given out.
            {revoking.id === session.keyId
              ? ' It is the key this console is signed in with: you will be signed out.'
              : ''}
          </p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}

function KeyRow({
  item,
  mine,
  inUse,
  onRevoke,
}: {
  item: Key;
  mine: boolean;
  inUse: boolean;
  onRevoke: (() => void) | null;
}) {
  const state = stateOf(item);
  const name = item.name ?? '(no name)';
  return (
    <tr class={state === 'active' ? undefined : 'inactive'}>
      <th scope="row">
        {name}
        {inUse ? <span class="tag">this console</span> : null}
      </th>
      <td data-label="Scope">{item.scope}</td>
      <td data-label="Owner">{item.service ? 'machine (workspace key)' : mine ? 'you' : item.user.name}</td>
      <td data-label="Expires">{item.expiresAt === null ? 'never' : <RelativeTime at={item.expiresAt} />}</td>
      <td data-label="State">
        {state === 'revoked' && item.revokedAt !== null ? (
          <RelativeTime at={item.revokedAt} prefix="revoked " />
        ) : (
          state
        )}
      </td>
      <td>
        {onRevoke ? (
          <button
            type="button"
            class="danger small"
            aria-label={`Revoke ${item.name ?? item.id}`}
            onClick={onRevoke}
          >
            Revoke
          </button>
        ) : null}
      </td>
    </tr>
  );
}
