// The workspace's members with their roles. Admins change a role (a select per member) and remove a
// member (after a question); everyone else reads the list. A change of one's own role or membership
// is asked first too, since it may take away the power to undo it, and reloads the console after,
// so the header and every page show what the new role allows.
import { useState } from 'preact/hooks';
import { type Role, useApi, useSession } from '../session.js';
import { ConfirmDialog } from '../ui/confirm.js';
import { RelativeTime } from '../ui/relative-time.js';
import { InvitesPanel } from './invites-panel.js';
import { LinkShownOnce } from './link-shown-once.js';
import { memberChangeError } from './member-change-error.js';
import { ROLE_WORDS, rolesToGive, withArticle } from './roles.js';
import { isMachine, type Member, useMembers } from './use-members.js';

type Pending = { member: Member; role: Role } | { member: Member; remove: true };

export function MembersPage() {
  const api = useApi();
  const session = useSession();
  const { members, error: loadError, reload } = useMembers();
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  // A change waiting for its answer (or, for one's own, for the question): its select shows it.
  const [pending, setPending] = useState<Pending | null>(null);
  const [asking, setAsking] = useState(false);
  // A password reset link just made for a member, shown once.
  const [resetLink, setResetLink] = useState<{ name: string; link: string; expiresAt: number } | null>(null);

  async function makeResetLink(member: Member) {
    try {
      const answer = await api((client) =>
        client.POST('/v1/members/{userId}/reset', { params: { path: { userId: member.userId } } }),
      );
      setResetLink({ name: member.name, link: answer.data.link, expiresAt: answer.data.expiresAt });
      setError(null);
    } catch (failure) {
      setError(memberChangeError(`No reset link was made for “${member.name}”`, failure));
    }
  }

  async function apply(change: Pending) {
    const { member } = change;
    const self = member.userId === session.userId;
    setAsking(false);
    setPending(change);
    try {
      if ('remove' in change) {
        await api((client) =>
          client.DELETE('/v1/members/{userId}', { params: { path: { userId: member.userId } } }),
        );
        setNotice(`“${member.name}” was removed from the workspace.`);
      } else {
        await api((client) =>
          client.PATCH('/v1/members/{userId}', {
            params: { path: { userId: member.userId } },
            body: { role: change.role },
          }),
        );
        setNotice(`“${member.name}” is now ${withArticle(change.role)}.`);
      }
      setError(null);
      if (self) location.reload();
    } catch (failure) {
      setNotice(null);
      setError(
        memberChangeError(
          'remove' in change
            ? `“${member.name}” was not removed`
            : `The role of “${member.name}” was not changed`,
          failure,
        ),
      );
    } finally {
      setPending(null);
      reload();
    }
  }

  function ask(change: Pending) {
    // One's own change is asked first; another member's role is changed at once (it can be changed
    // back), their removal is asked.
    if (change.member.userId === session.userId || 'remove' in change) {
      setPending(change);
      setAsking(true);
    } else void apply(change);
  }

  const shownRole = (member: Member) =>
    pending && pending.member.userId === member.userId && 'role' in pending ? pending.role : member.role;

  return (
    <section aria-labelledby="members-title">
      <h1 id="members-title">Members</h1>
      <p>
        Everyone in this workspace and their role.{' '}
        {session.canAdmin
          ? 'As an admin you change their roles and remove members here; a change takes effect at once, on their keys too.'
          : 'Only admins and owners change roles or remove members.'}
      </p>
      <details class="roles-help">
        <summary>What each role may do</summary>
        <ul>
          {Object.entries(ROLE_WORDS).map(([role, words]) => (
            <li key={role}>{words}</li>
          ))}
        </ul>
      </details>
      {notice ? (
        <p class="notice" role="status">
          {notice}
        </p>
      ) : null}
      {error || loadError ? (
        <p class="error" role="alert">
          {error ?? loadError}
        </p>
      ) : null}
      {members === null ? <p>Loading…</p> : null}
      {members?.length ? (
        <div class="table-wrap">
          <table class="members cards">
            <caption class="visually-hidden">Members of the workspace</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Role</th>
                <th scope="col">Member since</th>
                {session.canAdmin ? (
                  <th scope="col">
                    <span class="visually-hidden">Remove</span>
                  </th>
                ) : null}
              </tr>
            </thead>
            <tbody>
              {members.map((member) => {
                const roles = session.canAdmin ? rolesToGive(session.role, member.role) : [];
                const id = `role-${member.userId}`;
                return (
                  <tr key={member.userId}>
                    <th scope="row">
                      {member.name}
                      {member.userId === session.userId ? <span class="tag">you</span> : null}
                      {isMachine(member.userId) ? <span class="tag">machine (workspace key)</span> : null}
                    </th>
                    <td data-label="Role">
                      {roles.length ? (
                        <>
                          <label for={id} class="visually-hidden">
                            Role of {member.name}
                          </label>
                          <select
                            id={id}
                            value={shownRole(member)}
                            disabled={pending !== null}
                            onChange={(event) => {
                              const role = event.currentTarget.value as Role;
                              if (role !== member.role) ask({ member, role });
                            }}
                          >
                            {roles.map((role) => (
                              <option key={role} value={role}>
                                {role}
                              </option>
                            ))}
                          </select>
                        </>
                      ) : (
                        member.role
                      )}
                    </td>
                    <td data-label="Member since">
                      <RelativeTime at={member.since} />
                    </td>
                    {session.canAdmin ? (
                      <td>
                        {roles.length && !isMachine(member.userId) && member.userId !== session.userId ? (
                          <button
                            type="button"
                            class="secondary small"
                            aria-label={`Password reset link for ${member.name}`}
                            onClick={() => makeResetLink(member)}
                          >
                            Reset link
                          </button>
                        ) : null}{' '}
                        {roles.length ? (
                          <button
                            type="button"
                            class="danger small"
                            disabled={pending !== null}
                            aria-label={`Remove ${member.name}`}
                            onClick={() => ask({ member, remove: true })}
                          >
                            Remove
                          </button>
                        ) : null}
                      </td>
                    ) : null}
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      ) : null}
      {resetLink ? (
        <LinkShownOnce
          title={`A password reset link for “${resetLink.name}”`}
          link={resetLink.link}
          note={`Hand it to them: it works once, until ${new Date(resetLink.expiresAt).toLocaleString()}, and ends their sessions.`}
          onDone={() => setResetLink(null)}
        />
      ) : null}
      {session.canAdmin ? <InvitesPanel onInvited={reload} /> : null}
      {asking && pending ? (
        <Question
          change={pending}
          self={pending.member.userId === session.userId}
          onAnswer={apply}
          onCancel={() => {
            setAsking(false);
            setPending(null);
          }}
        />
      ) : null}
    </section>
  );
}

function Question({
  change,
  self,
  onAnswer,
  onCancel,
}: {
  change: Pending;
  self: boolean;
  onAnswer: (change: Pending) => void;
  onCancel: () => void;
}) {
  const { member } = change;
  if ('remove' in change) {
    return (
      <ConfirmDialog
        title={self ? 'Leave this workspace?' : `Remove “${member.name}”?`}
        confirmLabel={self ? 'Leave the workspace' : 'Remove member'}
        onConfirm={() => onAnswer(change)}
        onCancel={onCancel}
      >
        <p>
          {self
            ? 'You will no longer see this workspace, and your keys for it stop working at once.'
            : `“${member.name}” will no longer see this workspace, and their keys for it stop working at once. Their past changes stay in the activity.`}
        </p>
      </ConfirmDialog>
    );
  }
  return (
    <ConfirmDialog
      title={`Make yourself ${withArticle(change.role)}?`}
      confirmLabel={`Make me ${withArticle(change.role)}`}
      onConfirm={() => onAnswer(change)}
      onCancel={onCancel}
    >
      <p>
        You are {withArticle(member.role)} here. {ROLE_WORDS[change.role]}. Someone else would have to give
        back what you give up.
      </p>
    </ConfirmDialog>
  );
}
