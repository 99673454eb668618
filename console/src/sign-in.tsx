// Sign in with a workspace's API key. The key is checked with one small request before it is kept,
// so a mistyped or revoked key is said here, not by every panel after.
import { useState } from 'preact/hooks';
import { ApiError, clientFor, unwrap } from './api.js';
import { DocText } from './forms/text.js';
import { describeError } from './session.js';

export function SignIn({ message, onSignIn }: { message: string | null; onSignIn: (key: string) => void }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: Event) {
    event.preventDefault();
    const trimmed = key.trim();
    if (!trimmed) {
      setError('Paste the API key that `npm start` or `rulekeeper keys create` printed.');
      return;
    }
    setBusy(true);
    try {
      unwrap(await clientFor(trimmed).GET('/v1/groups', { params: { query: { pageSize: '1' } } }));
      onSignIn(trimmed);
    } catch (failure) {
      setError(
        failure instanceof ApiError && failure.status === 401
          ? 'The service does not accept this key: it is mistyped, revoked, or of another service.'
          : describeError(failure),
      );
    } finally {
      setBusy(false);
    }
  }

  return (
    <main class="sign-in">
      <h1>Rulekeeper</h1>
      <p>Manage, test and move the traffic rules of your workspace.</p>
      {message ? (
        <p class="notice" role="status">
          {message}
        </p>
      ) : null}
      <form onSubmit={submit} noValidate aria-busy={busy}>
        <div class={error ? 'field invalid' : 'field'}>
          <label for="api-key">API key</label>
          <input
            id="api-key"
            type="password"
            autocomplete="off"
            spellcheck={false}
            value={key}
            aria-invalid={error ? 'true' : undefined}
            aria-describedby={error ? 'api-key-error api-key-hint' : 'api-key-hint'}
            onInput={(e) => setKey(e.currentTarget.value)}
          />
          <small class="hint" id="api-key-hint">
            Printed by <code>npm start</code> on first start, or by <code>rulekeeper keys create</code>. Kept
            in this browser tab only, until you sign out or close it.
          </small>
          {error ? (
            <p class="field-error" id="api-key-error">
              <DocText text={error} />
            </p>
          ) : null}
        </div>
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
      <p>
        The API is under <code>/v1</code>; its reference is at <a href="/docs">/docs</a>.
      </p>
    </main>
  );
}
