// "Propose change": a title and a description asked in a modal dialog, then a change request made of
// the operations the editor wrote, and its page opened. Where the workspace requires review, this is
// how an editor saves; an admin may choose it too.
import { useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, type ChangeOperation, sentOperations } from '../api.js';
import { navigate } from '../route.js';
import { useApi } from '../session.js';
import { refusalWords } from './refusal-words.js';

export interface Proposal {
  operations: ChangeOperation[];
  /** A first title, e.g. "Change the rule “X”", that the person may keep or rewrite. */
  title: string;
  /** Said above the fields: why this is a proposal (review required, or chosen). */
  why?: string;
}

/**
 * A refusal of the one operation's body, with its details pointed at the body as the direct route
 * would point them: the editor shows them at its fields.
 */
export function bodyRefusal(failure: unknown, index: number): ApiError | null {
  if (!(failure instanceof ApiError) || failure.status !== 400) return null;
  const prefix = `/operations/${index}/body`;
  const details = failure.details;
  if (details.length === 0 || !details.every((d) => d.path === prefix || d.path.startsWith(`${prefix}/`)))
    return null;
  return new ApiError(failure.status, {
    ...(failure.body as NonNullable<ApiError['body']>),
    details: details.map((d) => ({ ...d, path: d.path.slice(prefix.length) })),
  });
}

export function ProposeDialog({
  proposal,
  onCancel,
  onFieldErrors,
}: {
  proposal: Proposal;
  onCancel: () => void;
  /** Shows a refusal of what was written at its fields (the dialog then closes). */
  onFieldErrors?: (refusal: ApiError) => void;
}) {
  const api = useApi();
  const dialog = useRef<HTMLDialogElement>(null);
  const [title, setTitle] = useState(proposal.title);
  const [description, setDescription] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  useEffect(() => {
    dialog.current?.showModal();
  }, []);

  async function submit(event: Event) {
    event.preventDefault();
    if (title.trim() === '') {
      setError('Give the change a title: reviewers see it first.');
      return;
    }
    setSending(true);
    try {
      const made = await api((client) =>
        client.POST('/v1/change-requests', {
          body: {
            title: title.trim(),
            ...(description.trim() ? { description } : {}),
            operations: sentOperations(proposal.operations),
          },
        }),
      );
      navigate({ page: 'change-request', id: made.data.id });
    } catch (failure) {
      const atFields = onFieldErrors && proposal.operations.length === 1 ? bodyRefusal(failure, 0) : null;
      if (atFields && onFieldErrors) return onFieldErrors(atFields);
      setError(refusalWords('The change was not proposed', failure));
      setSending(false);
    }
  }

  return (
    <dialog ref={dialog} aria-labelledby="propose-title" onCancel={onCancel} onClose={onCancel}>
      <form onSubmit={submit} noValidate aria-busy={sending}>
        <h2 id="propose-title">Propose change</h2>
        {proposal.why ? <p>{proposal.why}</p> : null}
        {error ? (
          <p class="error" role="alert">
            {error}
          </p>
        ) : null}
        <div class="field">
          <label for="propose-change-title">Title</label>
          <input
            id="propose-change-title"
            value={title}
            maxLength={256}
            required
            autofocus
            onInput={(e) => setTitle(e.currentTarget.value)}
          />
        </div>
        <div class="field">
          <label for="propose-change-description">
            Description <span class="optional">(optional)</span>
          </label>
          <textarea
            id="propose-change-description"
            rows={4}
            value={description}
            aria-describedby="propose-change-hint"
            onInput={(e) => setDescription(e.currentTarget.value)}
          />
          <small class="hint" id="propose-change-hint">
            Why the change, and what a reviewer should look at.
          </small>
        </div>
        <div class="actions">
          <button type="submit" disabled={sending}>
            Propose change
          </button>
          <button type="button" class="secondary" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </form>
    </dialog>
  );
}

/** The refusal of a direct write because review became required meanwhile. */
export const REVIEW_NOW_REQUIRED =
  'This workspace now requires review of changes, so yours was not saved. Propose it for review instead: nothing you wrote is lost.';
