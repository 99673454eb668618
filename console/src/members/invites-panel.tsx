// Inviting people (admins): an email and a role make a single-use link, shown once (and mailed when the
// service sends mail); the invites still to be accepted are listed, each revocable. Only an owner may
// invite an owner.
import { useCallback, useEffect, useState } from 'preact/hooks';
import type { Schemas } from '../api.js';
import { describeError, type Role, useApi, useSession } from '../session.js';
import { RelativeTime } from '../ui/relative-time.js';
import { LinkShownOnce } from './link-shown-once.js';
import { rolesToGive } from './roles.js';

type Invite = Schemas['Invite'];

export function InvitesPanel({ onInvited }: { onInvited: () => void }) {
  const api = useApi();
  const session = useSession();
  const [invites, setInvites] = useState<Invite[] | null>(null);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('editor');
  const [made, setMade] = useState<Schemas['NewInvite'] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const load = useCallback(() => {
    api((client) => client.GET('/v1/invites')).then(
      (answer) => setInvites(answer.data),
      (failure) => setError(describeError(failure)),
    );
  }, [api]);
  useEffect(load, [load]);

  async function invite(event: Event) {
    event.preventDefault();
    setBusy(true);
    try {
      const answer = await api((client) =>
        client.POST('/v1/invites', { body: { email: email.trim(), role } }),
      );
      setMade(answer.data);
      setEmail('');
      setError(null);
      onInvited();
    } catch (failure) {
      setError(`No invite was made: ${describeError(failure)}`);
    } finally {
      setBusy(false);
      load();
    }
  }

  async function revoke(invite: Invite) {
    try {
      await api((client) =>
        client.DELETE('/v1/invites/{inviteId}', { params: { path: { inviteId: invite.id } } }),
      );
    } catch (failure) {
      setError(
        `The invite of ${invite.email ?? 'the setup link'} was not revoked: ${describeError(failure)}`,
      );
    }
    load();
  }

  return (
    <section aria-labelledby="invites-title">
      <h2 id="invites-title">Invite people</h2>
      {made ? (
        <LinkShownOnce
          title={`An invite for ${made.email ?? 'the first owner'}`}
          link={made.link}
          note={`Hand it to them${made.mailed ? ' (it was also mailed)' : ''}: it works once, until ${new Date(made.expiresAt).toLocaleString()}.`}
          onDone={() => setMade(null)}
        />
      ) : null}
      <form class="invite-form" onSubmit={invite} aria-busy={busy}>
        <div class="field">
          <label for="invite-email">Email</label>
          <input
            id="invite-email"
            type="email"
            required
            value={email}
            onInput={(e) => setEmail(e.currentTarget.value)}
          />
        </div>
        <div class="field">
          <label for="invite-role">Role</label>
          <select id="invite-role" value={role} onChange={(e) => setRole(e.currentTarget.value as Role)}>
            {rolesToGive(session.role, 'viewer').map((option) => (
              <option key={option} value={option}>
                {option}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" disabled={busy}>
          Invite
        </button>
      </form>
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
      {invites?.length ? (
        <div class="table-wrap">
          <table class="cards">
            <caption>Invites not yet accepted</caption>
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">Expires</th>
                <th scope="col">
                  <span class="visually-hidden">Revoke</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {invites.map((invite) => (
                <tr key={invite.id}>
                  <th scope="row">{invite.email ?? 'the setup link (first owner)'}</th>
                  <td data-label="Role">{invite.role}</td>
                  <td data-label="Expires">
                    <RelativeTime at={invite.expiresAt} />
                  </td>
                  <td>
                    <button
                      type="button"
                      class="secondary small"
                      aria-label={`Revoke the invite of ${invite.email ?? 'the setup link'}`}
                      onClick={() => revoke(invite)}
                    >
                      Revoke
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </section>
  );
}
