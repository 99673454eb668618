// Joining through a link: an invite (its email chosen by whoever invited), or the setup link printed on
// first start (the first owner chooses their email). A new account takes a password here; an account
// that exists proves itself with its current password. Accepting signs in.
import { useState } from 'preact/hooks';
import { ApiError, anonymousClient, unwrap } from '../api.js';
import type { Signed } from '../session.js';
import { personFrom, SingleSignOn } from '../sign-in.js';
import { forgetLinkAddress } from './link-token.js';

const GONE = 'This link no longer works: it was used, revoked or has expired. Ask for a new one.';

export function AcceptPage({ token, onSignIn }: { token: string; onSignIn: (signed: Signed) => void }) {
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const body = {
        token,
        password,
        ...(email.trim() ? { email: email.trim() } : {}),
        ...(name.trim() ? { name: name.trim() } : {}),
      };
      const view = unwrap(await anonymousClient().POST('/v1/invites/accept', { body })).data;
      const signed = personFrom(view);
      forgetLinkAddress();
      if (signed) onSignIn(signed);
    } catch (failure) {
      if (!(failure instanceof ApiError)) setError(String(failure));
      else if (failure.code === 'LINK_INVALID') setError(GONE);
      else if (failure.code === 'INVALID_CREDENTIALS')
        setError('An account has this email: enter its current password to join.');
      else
        setError(
          [failure.message, ...failure.details.map((d) => `${d.path.replace(/^\//, '')} ${d.message}`)].join(
            ': ',
          ),
        );
    } finally {
      setBusy(false);
    }
  }

  return (
    <main class="sign-in">
      <h1>Join Rulekeeper</h1>
      <p>You were invited to a workspace. Choose how you sign in; the link works once.</p>
      <form onSubmit={submit} noValidate aria-busy={busy} aria-labelledby="accept-heading">
        <h2 id="accept-heading">Your account</h2>
        <div class="field">
          <label for="accept-email">Email</label>
          <input
            id="accept-email"
            type="email"
            autocomplete="username"
            value={email}
            aria-describedby="accept-email-hint"
            onInput={(e) => setEmail(e.currentTarget.value)}
          />
          <small class="hint" id="accept-email-hint">
            Only for the setup link printed on first start. An invite is for the email it was sent to: leave
            this empty.
          </small>
        </div>
        <div class="field">
          <label for="accept-name">Name</label>
          <input
            id="accept-name"
            autocomplete="name"
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </div>
        <div class={error ? 'field invalid' : 'field'}>
          <label for="accept-password">Password</label>
          <input
            id="accept-password"
            type="password"
            autocomplete="new-password"
            value={password}
            aria-invalid={error ? 'true' : undefined}
            aria-describedby={error ? 'accept-error accept-password-hint' : 'accept-password-hint'}
            onInput={(e) => setPassword(e.currentTarget.value)}
          />
          <small class="hint" id="accept-password-hint">
            At least 12 characters. If you already have an account here, its current password.
          </small>
          {error ? (
            <p class="field-error" id="accept-error">
              {error}
            </p>
          ) : null}
        </div>
        <button type="submit" disabled={busy}>
          Join
        </button>
      </form>
      {/* An invite is also accepted by signing in through the team's provider with its email. */}
      <SingleSignOn />
    </main>
  );
}
