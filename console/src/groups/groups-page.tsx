// The workspace's groups: rule counts, create, rename, switch on or off, delete (saying how many
// rules it ungroups). Follows the change stream like the rule list. Someone who may only read sees
// the groups and their counts, and no control that would be refused. Where the workspace requires
// review, an editor's create, rename, switch and delete are proposed as change requests instead.
import { useContext, useEffect, useState } from 'preact/hooks';
import { ApiError, type ChangeOperation, type Group } from '../api.js';
import { type Proposal, ProposeDialog, REVIEW_NOW_REQUIRED } from '../change-requests/propose-dialog.js';
import { errorsByPointer } from '../forms/field-errors.js';
import { LiveContext } from '../live-context.js';
import { describeError, useApi, useSession } from '../session.js';
import { mustPropose, useSettings } from '../settings/use-settings.js';
import { ConfirmDialog } from '../ui/confirm.js';
import { ReadOnlyNote } from '../ui/read-only-note.js';
import { StatusSwitch } from '../ui/status-switch.js';
import { useGroups } from './use-groups.js';

export function GroupsPage() {
  const api = useApi();
  const { canWrite, canAdmin } = useSession();
  const changes = useContext(LiveContext);
  const { groups, reload } = useGroups();
  const { settings } = useSettings();
  const proposing = mustPropose(settings, canWrite, canAdmin);
  const [proposal, setProposal] = useState<Proposal | null>(null);
  // A direct write refused because review became required meanwhile: offered as a proposal.
  const [refused, setRefused] = useState<Proposal | null>(null);
  const [name, setName] = useState('');
  const [createError, setCreateError] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<Group | null>(null);
  useEffect(() => reload(), [changes]);

  const WHY = 'This workspace requires review: your change is applied once someone else approves it.';

  /** A write, or, where review is required of this person, its proposal. */
  async function act(what: string, call: () => Promise<unknown>, operation: ChangeOperation, title: string) {
    if (proposing) {
      setProposal({ operations: [operation], title, why: WHY });
      return;
    }
    try {
      await call();
      setError(null);
      setRefused(null);
    } catch (failure) {
      if (failure instanceof ApiError && failure.code === 'REVIEW_REQUIRED') {
        setError(REVIEW_NOW_REQUIRED);
        setRefused({ operations: [operation], title, why: WHY });
      } else setError(`${what} failed: ${describeError(failure)}`);
    }
    reload();
  }

  async function create(event: Event) {
    event.preventDefault();
    const operation: ChangeOperation = { op: 'create', kind: 'group', body: { name } };
    if (proposing) {
      setProposal({ operations: [operation], title: `Create the group “${name}”`, why: WHY });
      return;
    }
    try {
      await api((client) => client.POST('/v1/groups', { body: { name } }));
      setName('');
      setCreateError(null);
      reload();
    } catch (failure) {
      if (failure instanceof ApiError && failure.code === 'REVIEW_REQUIRED') {
        setCreateError(REVIEW_NOW_REQUIRED);
        setRefused({ operations: [operation], title: `Create the group “${name}”`, why: WHY });
        return;
      }
      const detail = failure instanceof ApiError ? errorsByPointer(failure.details).get('/name') : undefined;
      setCreateError(detail?.join('; ') ?? describeError(failure));
    }
  }

  return (
    <section aria-labelledby="groups-title">
      <h1 id="groups-title">Groups</h1>
      <p>A group switches its rules together: a rule acts only while it and its group are active.</p>
      {proposing ? (
        <p class="hint">
          This workspace requires review: what you change here is proposed as a change request, and applied
          once someone else approves it.
        </p>
      ) : null}
      {canWrite ? (
        <form class="inline-form new-group" onSubmit={create} noValidate>
          <div class={createError ? 'field invalid' : 'field'}>
            <label for="new-group-name">New group name</label>
            <input
              id="new-group-name"
              value={name}
              autocomplete="off"
              aria-invalid={createError ? 'true' : undefined}
              aria-describedby={createError ? 'new-group-error' : undefined}
              onInput={(e) => setName(e.currentTarget.value)}
            />
            {createError ? (
              <p class="field-error" id="new-group-error">
                {createError}
              </p>
            ) : null}
          </div>
          <button type="submit">{proposing ? 'Propose group' : 'Create group'}</button>
        </form>
      ) : (
        <ReadOnlyNote can="view groups" />
      )}
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
      {refused ? (
        <p>
          <button
            type="button"
            onClick={() => {
              setProposal(refused);
              setRefused(null);
            }}
          >
            Propose this change
          </button>
        </p>
      ) : null}
      {groups === null ? <p>Loading…</p> : null}
      {groups?.length === 0 ? <p class="empty">No groups yet.</p> : null}
      <ul class="group-list">
        {(groups ?? []).map((group) => (
          <GroupRow
            key={group.id}
            group={group}
            editable={canWrite}
            onRename={(newName) =>
              act(
                'Renaming',
                () =>
                  api((client) =>
                    client.PUT('/v1/groups/{id}', {
                      params: { path: { id: group.id } },
                      body: { name: newName },
                    }),
                  ),
                { op: 'update', kind: 'group', id: group.id, body: { name: newName } },
                `Rename the group “${group.name}” to “${newName}”`,
              )
            }
            onSwitch={() => {
              const status = group.status === 'Active' ? 'Inactive' : 'Active';
              act(
                'Switching',
                () =>
                  api((client) =>
                    client.PUT('/v1/groups/{id}', {
                      params: { path: { id: group.id } },
                      body: { status },
                    }),
                  ),
                { op: 'update', kind: 'group', id: group.id, body: { status } },
                `Switch the group “${group.name}” ${status === 'Active' ? 'on' : 'off'}`,
              );
            }}
            onDelete={() => setDeleting(group)}
          />
        ))}
      </ul>
      {deleting ? (
        <ConfirmDialog
          title={
            proposing
              ? `Propose deleting the group “${deleting.name}”?`
              : `Delete the group “${deleting.name}”?`
          }
          confirmLabel={proposing ? 'Go on' : 'Delete group'}
          onCancel={() => setDeleting(null)}
          onConfirm={() => {
            const group = deleting;
            setDeleting(null);
            act(
              'Deleting',
              () => api((client) => client.DELETE('/v1/groups/{id}', { params: { path: { id: group.id } } })),
              { op: 'delete', kind: 'group', id: group.id },
              `Delete the group “${group.name}”`,
            );
          }}
        >
          <p>
            {deleting.ruleCount === 0
              ? 'It has no rules.'
              : `Its ${deleting.ruleCount === 1 ? 'rule' : `${deleting.ruleCount} rules`} will be ungrouped, not deleted.`}
          </p>
        </ConfirmDialog>
      ) : null}
      {proposal ? <ProposeDialog proposal={proposal} onCancel={() => setProposal(null)} /> : null}
    </section>
  );
}

/**
 * "4 rules, 3 active"; of an inactive group, none of its rules acts, whatever their own status, so it
 * does not say they are active.
 */
export function ruleCount({ ruleCount: all, activeRuleCount: on, status }: Group): string {
  const rules = `${all} ${all === 1 ? 'rule' : 'rules'}`;
  if (status === 'Active') return `${rules}, ${on} active`;
  return all === 0 ? rules : `${rules}, none acting while the group is inactive (${on} switched on)`;
}

interface RowProps {
  group: Group;
  /** False for someone who may only read: the name, the count and the status in words. */
  editable: boolean;
  onRename: (name: string) => void;
  onSwitch: () => void;
  onDelete: () => void;
}

function GroupRow({ group, editable, onRename, onSwitch, onDelete }: RowProps) {
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(group.name);
  const inputId = `rename-${group.id}`;
  return (
    <li class="group-row">
      {editing ? (
        <form
          class="inline-form"
          onSubmit={(event) => {
            event.preventDefault();
            setEditing(false);
            onRename(name);
          }}
        >
          <label for={inputId} class="visually-hidden">
            New name for {group.name}
          </label>
          <input id={inputId} value={name} onInput={(e) => setName(e.currentTarget.value)} autofocus />
          <button type="submit" class="small">
            Save name
          </button>
          <button type="button" class="secondary small" onClick={() => setEditing(false)}>
            Cancel
          </button>
        </form>
      ) : (
        <>
          <span class="group-name">{group.name}</span>
          <span class="count">{ruleCount(group)}</span>
          <StatusSwitch name={group.name} status={group.status} onSwitch={editable ? onSwitch : null} />
          {editable ? (
            <>
              <button
                type="button"
                class="secondary small"
                aria-label={`Rename ${group.name}`}
                onClick={() => {
                  setName(group.name);
                  setEditing(true);
                }}
              >
                Rename
              </button>
              <button
                type="button"
                class="danger small"
                aria-label={`Delete ${group.name}`}
                onClick={onDelete}
              >
                Delete
              </button>
            </>
          ) : null}
        </>
      )}
    </li>
  );
}
