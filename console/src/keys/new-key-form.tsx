// Making a key: a name, a scope no broader than the role and the signed-in key allow, an optional
// last day, and, for admins, whether it is a workspace key for a machine (its own service user, so
// it keeps working when its maker leaves) rather than a personal one.
import { useState } from 'preact/hooks';
import { ApiError, type Schemas } from '../api.js';
import { errorsByPointer } from '../forms/field-errors.js';
import { describeError, reachOf, SCOPES, useApi, useSession } from '../session.js';
import { endOfDay, SCOPE_WORDS, type Scope, today } from './key-words.js';

export function NewKeyForm({ onMade }: { onMade: (made: Schemas['NewKey']) => void }) {
  const api = useApi();
  const session = useSession();
  const scopes = SCOPES.slice(0, reachOf(session.role, session.scope) + 1);
  const [name, setName] = useState('');
  const [scope, setScope] = useState<Scope>('read');
  const [expiry, setExpiry] = useState('');
  const [service, setService] = useState(false);
  const [errors, setErrors] = useState<ReadonlyMap<string, string[]>>(new Map());
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: Event) {
    event.preventDefault();
    const expiresAt = expiry ? endOfDay(expiry) : null;
    if (!name.trim()) {
      setErrors(new Map([['/name', ['Give the key a name that says where it is used.']]]));
      return;
    }
    if (expiry && (expiresAt === null || expiresAt <= Date.now())) {
      setErrors(new Map([['/expiresAt', ['Choose today or a day after.']]]));
      return;
    }
    setBusy(true);
    try {
      const made = await api((client) =>
        client.POST('/v1/keys', {
          body: { name: name.trim(), scope, expiresAt, ...(service ? { service: true } : {}) },
        }),
      );
      setName('');
      setExpiry('');
      setService(false);
      setErrors(new Map());
      setError(null);
      onMade(made.data);
    } catch (failure) {
      const byField = failure instanceof ApiError ? errorsByPointer(failure.details) : new Map();
      setErrors(byField);
      const elsewhere =
        failure instanceof ApiError
          ? failure.details.filter((d) => !['/name', '/scope', '/expiresAt'].includes(d.path))
          : [];
      setError(
        byField.size && !elsewhere.length
          ? null
          : `The key was not made: ${describeError(failure)}${elsewhere.length ? ` (${elsewhere.map((d) => d.message).join('; ')})` : ''}`,
      );
    } finally {
      setBusy(false);
    }
  }

  const problem = (pointer: string) => errors.get(pointer)?.join('; ');
  const nameError = problem('/name');
  const scopeError = problem('/scope');
  const expiryError = problem('/expiresAt');
  return (
    <form class="new-key" onSubmit={submit} noValidate aria-busy={busy} aria-labelledby="new-key-title">
      <h2 id="new-key-title">New key</h2>
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
      <div class="row">
        <div class={nameError ? 'field invalid' : 'field'}>
          <label for="key-name">Name</label>
          <input
            id="key-name"
            value={name}
            autocomplete="off"
            maxLength={100}
            aria-invalid={nameError ? 'true' : undefined}
            aria-describedby={nameError ? 'key-name-error key-name-hint' : 'key-name-hint'}
            onInput={(e) => setName(e.currentTarget.value)}
          />
          <small class="hint" id="key-name-hint">
            Where it is used: “CI reader”, “my laptop”.
          </small>
          {nameError ? (
            <p class="field-error" id="key-name-error">
              {nameError}
            </p>
          ) : null}
        </div>
        <div class={scopeError ? 'field invalid' : 'field'}>
          <label for="key-scope">Scope</label>
          <select
            id="key-scope"
            value={scope}
            aria-describedby={scopeError ? 'key-scope-error key-scope-hint' : 'key-scope-hint'}
            onChange={(e) => setScope(e.currentTarget.value as Scope)}
          >
            {scopes.map((option) => (
              <option key={option} value={option}>
                {option}
              </option>
            ))}
          </select>
          <small class="hint" id="key-scope-hint">
            {SCOPE_WORDS[scope]}.{' '}
            {scopes.length < SCOPES.length
              ? `Up to ${scopes.at(-1)}: what your role${'key' in session.credentials ? ' and this key' : ''} allow.`
              : null}
          </small>
          {scopeError ? (
            <p class="field-error" id="key-scope-error">
              {scopeError}
            </p>
          ) : null}
        </div>
        <div class={expiryError ? 'field invalid' : 'field'}>
          <label for="key-expiry">
            Expires <span class="optional">(optional)</span>
          </label>
          <input
            id="key-expiry"
            type="date"
            min={today()}
            value={expiry}
            aria-invalid={expiryError ? 'true' : undefined}
            aria-describedby={expiryError ? 'key-expiry-error key-expiry-hint' : 'key-expiry-hint'}
            onInput={(e) => setExpiry(e.currentTarget.value)}
          />
          <small class="hint" id="key-expiry-hint">
            It stops working at the end of that day. Empty: it never expires.
          </small>
          {expiryError ? (
            <p class="field-error" id="key-expiry-error">
              {expiryError}
            </p>
          ) : null}
        </div>
      </div>
      {session.canAdmin ? (
        <div class="field">
          <span class="checkbox">
            <input
              id="key-service"
              type="checkbox"
              checked={service}
              aria-describedby="key-service-hint"
              onChange={(e) => setService(e.currentTarget.checked)}
            />
            <label for="key-service">For a machine (workspace key)</label>
          </span>
          <small class="hint" id="key-service-hint">
            A key of the workspace, not yours, for CI, a proxy or the extension: it keeps working if you
            leave, until an admin revokes it.
          </small>
        </div>
      ) : null}
      <button type="submit" disabled={busy}>
        Create key
      </button>
    </form>
  );
}
