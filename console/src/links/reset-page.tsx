// Choosing a new password through a reset link (made by an admin, or mailed on request). It ends every
// session of the person; they then sign in with the new password.
import { useState } from 'preact/hooks';
import { ApiError, anonymousClient, unwrap } from '../api.js';
import { forgetLinkAddress } from './link-token.js';

export function ResetPage({ token, onDone }: { token: string; onDone: (message: string) => void }) {
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: Event) {
    event.preventDefault();
    if (password !== again) {
      setError('The two passwords differ.');
      return;
    }
    setBusy(true);
    try {
      unwrap(await anonymousClient().POST('/v1/password/reset', { body: { token, password } }));
      forgetLinkAddress();
      onDone('Your password is changed, and every session of yours ended. Sign in with the new one.');
    } catch (failure) {
      setError(
        failure instanceof ApiError && failure.code === 'LINK_INVALID'
          ? 'This link no longer works: it was used or has expired. Ask for a new one.'
          : failure instanceof ApiError
            ? [failure.message, ...failure.details.map((d) => d.message)].join(': ')
            : String(failure),
      );
    } finally {
      setBusy(false);
    }
  }

  return (
    <main class="sign-in">
      <h1>A new password</h1>
      <form onSubmit={submit} noValidate aria-busy={busy} aria-labelledby="reset-heading">
        <h2 id="reset-heading">Choose it</h2>
        <div class="field">
          <label for="new-password">New password</label>
          <input
            id="new-password"
            type="password"
            autocomplete="new-password"
            value={password}
            aria-describedby="new-password-hint"
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
          <small class="hint" id="new-password-hint">
            At least 12 characters.
          </small>
        </div>
        <div class={error ? 'field invalid' : 'field'}>
          <label for="new-password-again">New password, again</label>
          <input
            id="new-password-again"
            type="password"
            autocomplete="new-password"
            value={again}
            aria-invalid={error ? 'true' : undefined}
            aria-describedby={error ? 'reset-error' : undefined}
            onInput={(e) => setAgain(e.currentTarget.value)}
          />
          {error ? (
            <p class="field-error" id="reset-error">
              {error}
            </p>
          ) : null}
        </div>
        <button type="submit" disabled={busy}>
          Change password
        </button>
      </form>
    </main>
  );
}
