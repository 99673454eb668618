// Its author edits a group operation of a change request in place: the name and status it proposes
// (a group has no more to it), saved back into the change request.
import { useState } from 'preact/hooks';
import type { ChangeOperation } from '../api.js';

export function GroupOperationForm({
  index,
  operation,
  onSave,
}: {
  index: number;
  operation: ChangeOperation;
  onSave: (body: Record<string, unknown>) => Promise<boolean>;
}) {
  const body = (operation.body ?? {}) as { name?: string; status?: string };
  const [open, setOpen] = useState(false);
  const [name, setName] = useState(body.name ?? '');
  const [status, setStatus] = useState(body.status ?? '');
  if (!open)
    return (
      <button type="button" class="secondary small" onClick={() => setOpen(true)}>
        Edit operation {index + 1}
      </button>
    );
  const id = `group-operation-${index}`;
  return (
    <form
      class="inline-form"
      noValidate
      onSubmit={async (event) => {
        event.preventDefault();
        // Only what it sets: an update leaves the rest of the group as it is.
        const next: Record<string, unknown> = {};
        if (name !== '' || operation.op === 'create') next.name = name;
        if (status !== '') next.status = status;
        if (await onSave(next)) setOpen(false);
      }}
    >
      <div class="field">
        <label for={`${id}-name`}>Name</label>
        <input id={`${id}-name`} value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </div>
      <div class="field">
        <label for={`${id}-status`}>Status</label>
        <select id={`${id}-status`} value={status} onChange={(e) => setStatus(e.currentTarget.value)}>
          {operation.op === 'create' ? null : <option value="">(unchanged)</option>}
          <option value="Active">Active</option>
          <option value="Inactive">Inactive</option>
        </select>
      </div>
      <button type="submit" class="small">
        Save to the change request
      </button>
      <button type="button" class="secondary small" onClick={() => setOpen(false)}>
        Cancel
      </button>
    </form>
  );
}
