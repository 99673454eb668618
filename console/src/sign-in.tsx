// Signing in: a person with their email and password (the service sets an HttpOnly cookie the page
// never sees), or, for a machine's key or a quick look, an API key. Either is checked with one small
// request before the console opens, so a mistake is said here, not by every panel after.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, anonymousClient, clientFor, type Schemas, unwrap } from './api.js';
import { DocText } from './forms/text.js';
import { describeError, type Signed } from './session.js';

/** Who a person's session speaks for, in `workspaceId` (their first workspace without it). */
export function personFrom(view: Schemas['Session'], workspaceId?: string): Signed | null {
  const workspace = view.workspaces.find((w) => w.id === workspaceId) ?? view.workspaces[0];
  if (!workspace) return null;
  return {
    credentials: { session: { csrfToken: view.csrfToken, workspaceId: workspace.id } },
    userId: view.user.id,
    name: view.user.name,
    role: workspace.role,
    scope: 'admin',
    workspaceId: workspace.id,
    workspaces: view.workspaces,
  };
}

const NO_WORKSPACE =
  'You belong to no workspace yet: ask an admin of your team to invite you, or to add you again.';

function PersonForm({ onSignIn }: { onSignIn: (signed: Signed) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: Event) {
    event.preventDefault();
    if (!email.trim() || !password) {
      setError('Enter your email and your password.');
      return;
    }
    setBusy(true);
    try {
      const view = unwrap(await anonymousClient().POST('/v1/session', { body: { email, password } })).data;
      const signed = personFrom(view);
      if (signed) onSignIn(signed);
      else setError(NO_WORKSPACE);
    } catch (failure) {
      setError(
        failure instanceof ApiError && failure.code === 'INVALID_CREDENTIALS'
          ? 'That email and password do not match an account here.'
          : describeError(failure),
      );
    } finally {
      setBusy(false);
    }
  }

  return (
    <form onSubmit={submit} noValidate aria-busy={busy} aria-labelledby="person-heading">
      <h2 id="person-heading">Sign in</h2>
      <div class="field">
        <label for="email">Email</label>
        <input
          id="email"
          type="email"
          autocomplete="username"
          value={email}
          onInput={(e) => setEmail(e.currentTarget.value)}
        />
      </div>
      <div class={error ? 'field invalid' : 'field'}>
        <label for="password">Password</label>
        <input
          id="password"
          type="password"
          autocomplete="current-password"
          value={password}
          aria-invalid={error ? 'true' : undefined}
          aria-describedby={error ? 'person-error' : undefined}
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
        {error ? (
          <p class="field-error" id="person-error">
            {error}
          </p>
        ) : null}
      </div>
      <button type="submit" disabled={busy}>
        Sign in
      </button>
    </form>
  );
}

function KeyForm({ onSignIn }: { onSignIn: (signed: Signed) => void }) {
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
      const { data } = unwrap(await clientFor({ key: trimmed }).GET('/v1/whoami'));
      onSignIn({
        credentials: { key: trimmed },
        userId: data.user.id,
        ...(data.key ? { keyId: data.key.id } : {}),
        ...(data.key?.environment ? { keyEnvironment: data.key.environment } : {}),
        name: data.user.name,
        role: data.user.role,
        // Asked with a key, whoami describes it; a session's answer (no key) has its role's reach.
        scope: data.key?.scope ?? 'admin',
        workspaceId: data.workspace.id,
        workspaces: [{ id: data.workspace.id, name: data.workspace.name, role: data.user.role }],
      });
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
    <form onSubmit={submit} noValidate aria-busy={busy} aria-labelledby="key-heading">
      <h2 id="key-heading">Or use an API key</h2>
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
          Printed by <code>npm start</code> on first start, or by <code>rulekeeper keys create</code>. Kept in
          this browser tab only, until you sign out or close it.
        </small>
        {error ? (
          <p class="field-error" id="api-key-error">
            <DocText text={error} />
          </p>
        ) : null}
      </div>
      <button type="submit" class="secondary" disabled={busy}>
        Use key
      </button>
    </form>
  );
}

/** What a refused single sign-on came back with (`?sso_error=`), in words. */
const SSO_ERRORS: Record<string, string> = {
  unavailable: 'The single sign-on provider could not be reached. Try again in a moment.',
  expired: 'That sign-in took too long or was already used. Start again.',
  failed: 'The single sign-on provider did not sign you in. Start again.',
  email_unverified: 'Your provider has not verified your email address, so it cannot sign you in here.',
  domain_not_allowed: "Your email's domain is not one this service takes single sign-ons from.",
  no_access: 'This account has no access here. Ask an admin of your team to invite you.',
};

/** The SSO button, when the service has single sign-on (GET /v1/session/providers says). */
export function SingleSignOn() {
  const [start, setStart] = useState<string | null>(null);
  useEffect(() => {
    anonymousClient()
      .GET('/v1/session/providers')
      .then((answer) => setStart(answer.data?.data.oidc?.start ?? null))
      .catch(() => {});
  }, []);
  if (!start) return null;
  return (
    <p>
      <a class="button" href={start}>
        Sign in with single sign-on
      </a>
    </p>
  );
}

/** "Forgot your password?": answers alike whether the email has an account, as the service does. */
function ForgotPassword() {
  const [open, setOpen] = useState(false);
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState(false);
  if (!open)
    return (
      <p>
        <button type="button" class="secondary small" onClick={() => setOpen(true)}>
          Forgot your password?
        </button>
      </p>
    );
  if (sent)
    return (
      <p class="notice" role="status">
        If an account has this email, a link to choose a new password is on its way (when this service sends
        mail; otherwise ask an admin of your team for a reset link).
      </p>
    );
  return (
    <form
      noValidate
      aria-labelledby="forgot-heading"
      onSubmit={async (event) => {
        event.preventDefault();
        await anonymousClient()
          .POST('/v1/password/forgot', { body: { email: email.trim() } })
          .catch(() => {});
        setSent(true);
      }}
    >
      <h2 id="forgot-heading">A new password</h2>
      <div class="field">
        <label for="forgot-email">Your email</label>
        <input
          id="forgot-email"
          type="email"
          value={email}
          onInput={(e) => setEmail(e.currentTarget.value)}
        />
      </div>
      <button type="submit" class="secondary">
        Send me a link
      </button>
    </form>
  );
}

export function SignIn({
  message,
  onSignIn,
}: {
  message: string | null;
  onSignIn: (signed: Signed) => void;
}) {
  const ssoError = new URLSearchParams(location.search).get('sso_error');
  const shown = message ?? (ssoError ? (SSO_ERRORS[ssoError] ?? SSO_ERRORS.failed) : null);
  return (
    <main class="sign-in">
      <h1>Rulekeeper</h1>
      <p>Manage, test and move the traffic rules of your workspace.</p>
      {shown ? (
        <p class="notice" role="status">
          {shown}
        </p>
      ) : null}
      <PersonForm onSignIn={onSignIn} />
      <SingleSignOn />
      <ForgotPassword />
      <KeyForm onSignIn={onSignIn} />
      <p>
        The API is under <code>/v1</code>; its reference is at <a href="/docs">/docs</a>.
      </p>
    </main>
  );
}
