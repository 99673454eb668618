// One change request: what it proposes (each operation side by side with what is stored now), what it
// would do (the evidence, read again while the service computes it), its reviews, and what the person
// reading may do with it now: approve or ask for changes (not its author, who is told why), merge once
// approved (a conflict names what moved, with links), close; its author edits its words and goes back
// to edit its rules.
import { useContext, useEffect, useState } from 'preact/hooks';
import { ApiError, type ChangeOperation, type ChangeRequest, sentOperations } from '../api.js';
import { useGroups } from '../groups/use-groups.js';
import { LiveContext } from '../live-context.js';
import { hrefFor } from '../route.js';
import { describeError, useApi, useSession } from '../session.js';
import { mayReview, REVIEWER_WORDS, useSettings } from '../settings/use-settings.js';
import { ConfirmDialog } from '../ui/confirm.js';
import { takeFlash } from '../ui/flash.js';
import { RelativeTime } from '../ui/relative-time.js';
import { Said } from '../ui/said.js';
import {
  type Moved,
  movedObjects,
  type Names,
  nameKey,
  STATE_MEANING,
  STATE_WORDS,
  UNDER_WAY,
} from './change-request-words.js';
import { EvidenceView } from './evidence-view.js';
import { GroupOperationForm } from './group-operation-form.js';
import { type Current, OperationView } from './operation-view.js';
import { refusalWords } from './refusal-words.js';

/** How soon a page whose evidence is being computed asks again: soon, then less and less often. */
const pollDelay = (asked: number) => Math.min(1500 * 2 ** asked, 30_000);

/** The stored objects the operations touch, by `kind id` (a create's local `$name` is not one). */
const touched = (operations: ChangeOperation[]) =>
  operations.filter((op) => op.op !== 'create' && op.id && !op.id.startsWith('$'));

export function ChangeRequestPage({ id }: { id: string }) {
  const api = useApi();
  const session = useSession();
  const changes = useContext(LiveContext);
  const { settings } = useSettings();
  const { groups } = useGroups();
  const [cr, setCr] = useState<ChangeRequest | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [currents, setCurrents] = useState<Map<string, Current>>(new Map());
  const [notice, setNotice] = useState<string | null>(() => takeFlash());
  const [error, setError] = useState<string | null>(null);
  // A merge refused because what it touches moved: said with the names known when it is shown.
  const [conflict, setConflict] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const [comment, setComment] = useState('');
  const [editing, setEditing] = useState(false);
  const [closing, setClosing] = useState(false);
  const [loads, setLoads] = useState(0);
  const reload = () => setLoads((n) => n + 1);

  useEffect(() => {
    let current = true;
    api((client) => client.GET('/v1/change-requests/{id}', { params: { path: { id } } }))
      .then((answer) => {
        if (!current) return;
        setCr(answer.data);
        setLoadError(null);
      })
      .catch((failure) => {
        if (!current) return;
        setLoadError(
          failure instanceof ApiError && failure.status === 404
            ? 'There is no such change request in this workspace.'
            : describeError(failure),
        );
      });
    return () => {
      current = false;
    };
  }, [api, id, changes, loads]);

  // The evidence is worked out after the answer: asked again until it is there.
  const [asked, setAsked] = useState(0);
  useEffect(() => {
    if (cr?.evidence.status !== 'pending') {
      setAsked(0);
      return;
    }
    const timer = setTimeout(() => {
      setAsked((n) => n + 1);
      reload();
    }, pollDelay(asked));
    return () => clearTimeout(timer);
  }, [cr]);

  // What is stored now of each object an operation touches: the "before" of its diff, and its name.
  // Once merged, "now" is the change itself: the before is the version just before its revision.
  const merged = cr?.state === 'merged' ? cr.mergedRevision : null;
  useEffect(() => {
    if (!cr) return;
    let current = true;
    for (const op of touched(cr.operations)) {
      const key = nameKey(op.kind, op.id as string);
      const objectId = op.id as string;
      const versions = () =>
        (op.kind === 'rule'
          ? api((client) =>
              client.GET('/v1/rules/{ruleId}/versions', { params: { path: { ruleId: objectId } } }),
            )
          : api((client) => client.GET('/v1/groups/{id}/versions', { params: { path: { id: objectId } } }))
        ).then((answer) => {
          const before = (answer.data as { revision: number; object: unknown }[])
            .filter((version) => merged !== null && version.revision < merged)
            .sort((a, b) => b.revision - a.revision)[0];
          if (!before) throw new ApiError(404, undefined);
          return { data: before.object };
        });
      const read: Promise<{ data: unknown }> =
        merged !== null
          ? versions()
          : op.kind === 'rule'
            ? api((client) => client.GET('/v1/rules/{ruleId}', { params: { path: { ruleId: objectId } } }))
            : api((client) => client.GET('/v1/groups/{id}', { params: { path: { id: objectId } } }));
      read
        .then((answer) => current && setCurrents((old) => new Map(old).set(key, answer.data as never)))
        .catch(
          (failure) =>
            current &&
            failure instanceof ApiError &&
            failure.status === 404 &&
            setCurrents((old) => new Map(old).set(key, 'missing')),
        );
    }
    return () => {
      current = false;
    };
  }, [cr]);

  if (!cr) {
    return (
      <section aria-labelledby="change-request-title">
        <p>
          <a href="#/change-requests">← All change requests</a>
        </p>
        <h1 id="change-request-title">Change request</h1>
        {loadError ? (
          <p class="error" role="alert">
            {loadError}
          </p>
        ) : (
          <p>Loading…</p>
        )}
      </section>
    );
  }

  const names: Names = new Map();
  for (const [key, value] of currents)
    if (value !== 'missing' && typeof value.name === 'string') names.set(key, value.name);
  for (const group of groups ?? [])
    if (!names.has(nameKey('group', group.id))) names.set(nameKey('group', group.id), group.name);

  const isAuthor = cr.author === session.userId;
  const underWay = UNDER_WAY.includes(cr.state);
  const reviewer = mayReview(settings, session.canWrite, session.canAdmin);
  const closable = underWay && (isAuthor || session.canAdmin);

  async function act(what: string, call: () => Promise<{ data: ChangeRequest }>, done: string) {
    setBusy(true);
    setConflict(null);
    try {
      const answer = await call();
      setCr(answer.data);
      setNotice(done);
      setError(null);
      return true;
    } catch (failure) {
      setNotice(null);
      if (failure instanceof ApiError && failure.code === 'CHANGE_REQUEST_CONFLICT' && cr) {
        setConflict(failure);
        setError(null);
      } else setError(refusalWords(what, failure));
      reload();
      return false;
    } finally {
      setBusy(false);
    }
  }

  const review = (verdict: 'approve' | 'request_changes') =>
    act(
      verdict === 'approve' ? 'It was not approved' : 'Changes were not requested',
      () =>
        api((client) =>
          client.POST('/v1/change-requests/{id}/reviews', {
            params: { path: { id } },
            body: { verdict, ...(comment.trim() ? { comment } : {}) },
          }),
        ),
      verdict === 'approve' ? 'You approved it.' : 'You asked for changes: its author is told so here.',
    ).then((ok) => ok && setComment(''));

  const merge = () =>
    act(
      'It was not merged',
      () => api((client) => client.POST('/v1/change-requests/{id}/merge', { params: { path: { id } } })),
      'Merged: its operations were applied as one revision.',
    );

  const close = () => {
    setClosing(false);
    return act(
      'It was not closed',
      () => api((client) => client.POST('/v1/change-requests/{id}/close', { params: { path: { id } } })),
      'Closed without merging.',
    );
  };

  const whoReviews = settings ? REVIEWER_WORDS[settings.reviewers] : 'Admins and owners';

  return (
    <section aria-labelledby="change-request-title" class="change-request">
      <p>
        <a href="#/change-requests">← All change requests</a>
      </p>
      <h1 id="change-request-title">{cr.title}</h1>
      <p class="cr-meta">
        <span class={`tag state-${cr.state}`}>{STATE_WORDS[cr.state]}</span> {STATE_MEANING[cr.state]}{' '}
        Proposed by <strong>{cr.authorName ?? 'someone no longer here'}</strong>
        {isAuthor ? ' (you)' : ''} <RelativeTime at={cr.createdAt} />, updated{' '}
        <RelativeTime at={cr.updatedAt} />. Written against revision {cr.baseRevision}
        {cr.mergedRevision !== null ? `; merged as revision ${cr.mergedRevision}` : ''}.
      </p>
      <Said notice={notice} error={error} />
      {conflict ? (
        <div class="error-summary" role="alert">
          <p>
            <strong>
              It was not merged: what it changes was changed by someone else since it was written.
            </strong>{' '}
            Nothing was applied. Its author can look at what is there now and update the change request.
          </p>
          <ul>
            {movedObjects(conflict.details, cr.operations, names).map((moved: Moved, i) => (
              <li key={i}>{moved.href ? <a href={moved.href}>{moved.words}</a> : moved.words}.</li>
            ))}
          </ul>
        </div>
      ) : null}

      {editing ? (
        <WordsForm
          cr={cr}
          onCancel={() => setEditing(false)}
          onSave={async (title, description) => {
            const ok = await act(
              'It was not updated',
              () =>
                api((client) =>
                  client.PATCH('/v1/change-requests/{id}', {
                    params: { path: { id } },
                    body: { title, description },
                  }),
                ),
              'Updated: it waits for a review again.',
            );
            if (ok) setEditing(false);
          }}
        />
      ) : (
        <>
          {cr.description ? (
            <p class="cr-description">{cr.description}</p>
          ) : (
            <p class="hint">No description.</p>
          )}
          {isAuthor && underWay ? (
            <button type="button" class="secondary small" onClick={() => setEditing(true)}>
              Edit title and description
            </button>
          ) : null}
        </>
      )}

      <h2>What it changes</h2>
      <ol class="operations">
        {cr.operations.map((operation, index) => (
          <OperationView
            key={index}
            index={index}
            operation={operation}
            current={
              operation.op === 'create' || !operation.id
                ? undefined
                : currents.get(nameKey(operation.kind, operation.id))
            }
            names={names}
            groups={groups}
            merged={merged}
            edit={
              !isAuthor || !underWay || operation.op === 'delete' ? null : operation.kind === 'rule' ? (
                <a
                  class="button secondary small"
                  href={hrefFor({ page: 'change-request-operation', id: cr.id, index })}
                >
                  Edit operation {index + 1}
                </a>
              ) : (
                <GroupOperationForm
                  index={index}
                  operation={operation}
                  onSave={(body) =>
                    act(
                      'It was not updated',
                      () =>
                        api((client) =>
                          client.PATCH('/v1/change-requests/{id}', {
                            params: { path: { id } },
                            body: {
                              operations: sentOperations(
                                cr.operations.map((op, i) => (i === index ? { ...op, body } : op)),
                              ),
                            },
                          }),
                        ),
                      'Updated: it waits for a review again.',
                    )
                  }
                />
              )
            }
          />
        ))}
      </ol>

      <h2>What it would do</h2>
      <div class="evidence">
        <EvidenceView evidence={cr.evidence} names={names} operations={cr.operations} />
      </div>

      <h2>Reviews</h2>
      {cr.reviews.length === 0 ? <p class="empty">No review yet.</p> : null}
      <ol class="reviews">
        {cr.reviews.map((r, i) => (
          <li key={i} class={r.current ? undefined : 'superseded'}>
            <p>
              <strong>{r.verdict === 'approve' ? 'Approved' : 'Changes requested'}</strong> by{' '}
              {r.byName ?? 'someone no longer here'} <RelativeTime at={r.at} />
              {r.current
                ? ''
                : ' (of an earlier version, or since revised by its reviewer: it no longer counts)'}
              {r.comment ? ':' : '.'}
            </p>
            {r.comment ? <p class="cr-description">{r.comment}</p> : null}
          </li>
        ))}
      </ol>

      {underWay ? (
        <section class="cr-actions" aria-labelledby="cr-actions-title">
          <h2 id="cr-actions-title">Your part</h2>
          {isAuthor ? (
            <p class="hint">
              You proposed this change, so you cannot approve it or ask for changes to it: someone else
              reviews it ({whoReviews.toLowerCase()} here).
            </p>
          ) : !reviewer ? (
            <p class="hint">{whoReviews} review change requests in this workspace; you may read it.</p>
          ) : (
            <div class="field">
              <label for="review-comment">
                Comment <span class="optional">(optional)</span>
              </label>
              <textarea
                id="review-comment"
                rows={3}
                value={comment}
                onInput={(e) => setComment(e.currentTarget.value)}
              />
            </div>
          )}
          <div class="actions">
            {!isAuthor && reviewer ? (
              <>
                <button type="button" disabled={busy} onClick={() => review('approve')}>
                  Approve
                </button>
                <button
                  type="button"
                  class="secondary"
                  disabled={busy}
                  onClick={() => review('request_changes')}
                >
                  Request changes
                </button>
              </>
            ) : null}
            {session.canWrite && cr.state === 'approved' ? (
              <button type="button" disabled={busy} onClick={merge}>
                Merge
              </button>
            ) : null}
            {closable ? (
              <button type="button" class="danger" disabled={busy} onClick={() => setClosing(true)}>
                Close without merging
              </button>
            ) : null}
          </div>
          {cr.state !== 'approved' && session.canWrite ? (
            <p class="hint">
              {cr.state === 'rejected'
                ? 'It can be merged once its author has made the changes asked for and it is approved.'
                : 'It can be merged once someone other than its author approves it.'}
            </p>
          ) : null}
        </section>
      ) : null}
      {closing ? (
        <ConfirmDialog
          title="Close this change request?"
          confirmLabel="Close it"
          onConfirm={close}
          onCancel={() => setClosing(false)}
        >
          <p>Nothing it proposes is applied, and it cannot be opened again.</p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}

function WordsForm({
  cr,
  onSave,
  onCancel,
}: {
  cr: ChangeRequest;
  onSave: (title: string, description: string) => void;
  onCancel: () => void;
}) {
  const [title, setTitle] = useState(cr.title);
  const [description, setDescription] = useState(cr.description);
  return (
    <form
      class="cr-words"
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        onSave(title, description);
      }}
    >
      <div class="field">
        <label for="cr-title">Title</label>
        <input
          id="cr-title"
          value={title}
          maxLength={256}
          onInput={(e) => setTitle(e.currentTarget.value)}
          autofocus
        />
      </div>
      <div class="field">
        <label for="cr-description">Description</label>
        <textarea
          id="cr-description"
          rows={4}
          value={description}
          onInput={(e) => setDescription(e.currentTarget.value)}
        />
      </div>
      <p class="hint">Saving makes it wait for a review again: earlier reviews no longer count.</p>
      <div class="actions">
        <button type="submit">Save</button>
        <button type="button" class="secondary" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}
