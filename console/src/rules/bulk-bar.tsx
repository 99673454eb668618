// Acting on many rules at once: select all shown, then activate, deactivate, move, duplicate or
// delete them. A delete asks first and can be undone (the rules are restored through the API).
import { useState } from 'preact/hooks';
import type { Group, Rule } from '../api.js';
import { GroupOptions } from '../groups/group-options.js';
import { useApi } from '../session.js';
import { ConfirmDialog } from '../ui/confirm.js';
import {
  type BulkResult,
  describeResult,
  duplicate,
  moveToGroup,
  remove,
  setStatus,
  undelete,
} from './bulk-actions.js';

export interface BulkOutcome {
  message: string;
  failed: boolean;
  /** The rules a delete removed, while they can be brought back with Undo. */
  deleted?: Rule[];
  clearSelection: boolean;
}

const plural = (count: number) => `${count} ${count === 1 ? 'rule' : 'rules'}`;

export function BulkBar({
  visible,
  selected,
  groups,
  outcome,
  onSelect,
  onClear,
  onDone,
}: {
  visible: Rule[];
  selected: Map<string, Rule>;
  groups: Group[] | null;
  outcome: BulkOutcome | null;
  onSelect: (rules: Rule[], on: boolean) => void;
  onClear: () => void;
  onDone: (outcome: BulkOutcome) => void;
}) {
  const api = useApi();
  const [groupId, setGroupId] = useState('');
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const rules = [...selected.values()];
  const allShown = visible.every((rule) => selected.has(rule.id));
  const someShown = visible.some((rule) => selected.has(rule.id));

  async function run(act: () => Promise<BulkResult>, done: string, deleting = false) {
    setBusy(true);
    try {
      const result = await act();
      onDone({
        message: describeResult(result, done),
        failed: result.failed.length > 0,
        ...(deleting ? { deleted: result.done } : {}),
        clearSelection: deleting || done === 'duplicated',
      });
    } finally {
      setBusy(false);
    }
  }

  const groupName = groupId ? (groups?.find((group) => group.id === groupId)?.name ?? groupId) : 'Ungrouped';
  return (
    <section class="bulk" aria-label="Selected rules">
      <div class="bulk-row">
        <label class="checkbox">
          <input
            type="checkbox"
            checked={allShown}
            ref={(box) => {
              if (box) box.indeterminate = someShown && !allShown;
            }}
            onChange={(event) => onSelect(visible, event.currentTarget.checked)}
          />
          Select all {visible.length} shown
        </label>
        <span aria-live="polite">{rules.length ? `${plural(rules.length)} selected` : ''}</span>
        {rules.length ? (
          <button type="button" class="secondary small" onClick={onClear}>
            Clear selection
          </button>
        ) : null}
      </div>
      {rules.length ? (
        <div class="bulk-row" aria-busy={busy}>
          <button
            type="button"
            class="small"
            disabled={busy}
            onClick={() => run(() => setStatus(api, rules, 'Active'), 'activated')}
          >
            Activate
          </button>
          <button
            type="button"
            class="secondary small"
            disabled={busy}
            onClick={() => run(() => setStatus(api, rules, 'Inactive'), 'deactivated')}
          >
            Deactivate
          </button>
          <span class="move">
            <label for="bulk-group" class="visually-hidden">
              Group to move the selected rules to
            </label>
            <select
              id="bulk-group"
              value={groupId}
              onChange={(event) => setGroupId(event.currentTarget.value)}
            >
              <GroupOptions groups={groups} />
            </select>
            <button
              type="button"
              class="secondary small"
              disabled={busy}
              onClick={() => run(() => moveToGroup(api, rules, groupId), `moved to ${groupName}`)}
            >
              Move
            </button>
          </span>
          <button
            type="button"
            class="secondary small"
            disabled={busy}
            onClick={() => run(() => duplicate(api, rules), 'duplicated')}
          >
            Duplicate
          </button>
          <button type="button" class="danger small" disabled={busy} onClick={() => setConfirming(true)}>
            Delete
          </button>
        </div>
      ) : null}
      {outcome ? (
        <p class={outcome.failed ? 'error' : 'notice'} role={outcome.failed ? 'alert' : 'status'}>
          {outcome.message}{' '}
          {outcome.deleted?.length ? (
            <button
              type="button"
              class="secondary small"
              disabled={busy}
              onClick={() => {
                const deleted = outcome.deleted ?? [];
                run(() => undelete(api, deleted), 'restored');
              }}
            >
              Undo
            </button>
          ) : null}
        </p>
      ) : null}
      {confirming ? (
        <ConfirmDialog
          title={`Delete ${plural(rules.length)}?`}
          confirmLabel={`Delete ${plural(rules.length)}`}
          onConfirm={() => {
            setConfirming(false);
            run(() => remove(api, rules), 'deleted', true);
          }}
          onCancel={() => setConfirming(false)}
        >
          <p>
            {rules
              .slice(0, 5)
              .map((rule) => `“${rule.name}”`)
              .join(', ')}
            {rules.length > 5 ? ` and ${rules.length - 5} more` : ''} will be deleted. You can undo it here,
            or restore them later from Recently deleted.
          </p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}
