// Adds an environment by name (`staging`, `dev`); the API's refusal (a name taken, one it does not
// take, too many) is said under the box.
import { useState } from 'preact/hooks';
import { ApiError } from '../api.js';
import { describeError, useApi } from '../session.js';
import { useEnvironments } from './environment-context.js';

const ID = 'new-environment';

export function NewEnvironmentForm({ onAdded }: { onAdded: (name: string) => void }) {
  const api = useApi();
  const { reload } = useEnvironments();
  const [name, setName] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: Event) {
    event.preventDefault();
    setBusy(true);
    try {
      const added = await api((client) => client.POST('/v1/environments', { body: { name: name.trim() } }));
      setName('');
      setProblem(null);
      onAdded(added.data.name);
      reload();
    } catch (failure) {
      // One box: whatever the details point at, it is this name.
      const details = failure instanceof ApiError ? failure.details.map((detail) => detail.message) : [];
      setProblem(details.length ? details.join('; ') : describeError(failure));
    } finally {
      setBusy(false);
    }
  }

  return (
    <form class="inline-form new-environment" onSubmit={submit} noValidate>
      <div class={problem ? 'field invalid' : 'field'}>
        <label for={ID}>New environment</label>
        <input
          id={ID}
          type="text"
          spellcheck={false}
          autocomplete="off"
          maxLength={64}
          placeholder="e.g. staging"
          value={name}
          aria-invalid={problem ? 'true' : undefined}
          aria-describedby={problem ? `${ID}-error` : `${ID}-hint`}
          onInput={(event) => setName(event.currentTarget.value)}
        />
        {problem ? (
          <p class="field-error" id={`${ID}-error`}>
            {problem}
          </p>
        ) : (
          <small class="hint" id={`${ID}-hint`}>
            Letters, digits, <code>.</code>, <code>_</code> and <code>-</code>.
          </small>
        )}
      </div>
      <button type="submit" disabled={busy}>
        Add environment
      </button>
    </form>
  );
}
