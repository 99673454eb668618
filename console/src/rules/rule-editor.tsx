// Create or edit one rule: a form drawn from its type's pair schema and a JSON view of the same
// body, the service's errors at the fields they name, and If-Match on save so that an edit made
// elsewhere meanwhile is reported instead of overwritten. "Test this rule" tries the unsaved rule.
// Someone who may only read sees the same rule with its fields disabled, and nothing to save,
// delete or restore. Where the workspace requires review, an editor's save and delete become "Propose
// change" (a change request); an admin may propose instead of saving. Opened from a change request
// (`proposal`), it edits that request's operation and saves it back there.
// Safe by default: a new rule starts Inactive, and a rule that would act on every request (a Cancel
// with no source…) is saved only once the person confirms what it will do; that check runs as they
// type and shows beside the source, with the service's lint findings about the saved rule.
import { useEffect, useRef, useState } from 'preact/hooks';
import {
  ApiError,
  type ChangeOperation,
  type ErrorDetail,
  type Rule,
  type RuleType,
  sentOperations,
} from '../api.js';
import {
  bodyRefusal,
  type Proposal,
  ProposeDialog,
  REVIEW_NOW_REQUIRED,
} from '../change-requests/propose-dialog.js';
import { refusalWords } from '../change-requests/refusal-words.js';
import { errorsByPointer, FieldErrorsContext, fieldId } from '../forms/field-errors.js';
import { FieldFindingsContext, findingsByPointer } from '../forms/field-findings.js';
import { type JsonSchema, pairSchema, RULE_TYPES, ruleTypeDescription } from '../forms/schema.js';
import { SchemaField } from '../forms/schema-field.js';
import { GroupOptions } from '../groups/group-options.js';
import { useGroups } from '../groups/use-groups.js';
import { navigate } from '../route.js';
import { describeError, useApi, useSession } from '../session.js';
import { mustPropose, useSettings } from '../settings/use-settings.js';
import { templateDraft, templateNotice } from '../templates/template-draft.js';
import { TraceForm } from '../trace/trace-form.js';
import { ConfirmDialog } from '../ui/confirm.js';
import { ErrorSummary } from '../ui/error-summary.js';
import { flash, takeFlash } from '../ui/flash.js';
import { ReadOnlyNote } from '../ui/read-only-note.js';
import { draftFindings, type UnsafePair, unsafePairs } from './editor-safety.js';
import { JsonView } from './json-view.js';
import { findingsFor, LintFindings, useLint } from './lint-findings.js';
import { draftOf, newDraft, type RuleDraft, withType } from './rule-draft.js';
import { RuleHistory } from './rule-history.js';
import { RuleHitsPanel } from './rule-hits.js';
import { RuleSummary } from './rule-summary.js';

const NAME: JsonSchema = { type: 'string', description: 'Shown in lists; need not be unique.' };
const DESCRIPTION: JsonSchema = { type: 'string' };
const PINNED: JsonSchema = {
  type: 'boolean',
  description: 'Pinned rules can be listed alone (Pinned only, in the rules list).',
};
const STATUS: JsonSchema = {
  enum: ['Active', 'Inactive'],
  description: 'Only active rules act. A new rule starts Inactive: switch it on when it is ready.',
};

/** How long typing pauses before the form's own checks run again on the draft. */
const CHECK_AFTER_MS = 300;

/** `value`, once it has stayed the same for `ms`: a newer value cancels the wait for an older one. */
function useSettled<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/** No problems: one array, so that the JSON view sees no change between renders. */
const NO_PROBLEMS: ErrorDetail[] = [];

const CONFLICT =
  'This rule was changed elsewhere since you opened it, so your version was not saved. ' +
  'Copy what you need from the JSON view, then load the current version.';

/** A change request's operation on a rule, edited by its author. */
export interface EditedOperation {
  changeRequestId: string;
  changeRequestTitle: string;
  index: number;
  operations: ChangeOperation[];
  /** The rule as the operation would leave it. */
  draft: RuleDraft;
}

export function RuleEditor({
  ruleId,
  template,
  operation,
}: {
  ruleId: string | null;
  template?: string;
  operation?: EditedOperation;
}) {
  const { canWrite } = useSession();
  // A new rule (from the `n` shortcut, a template or a link) is nothing to show to a reader.
  if (!canWrite && ruleId === null) {
    return (
      <section aria-labelledby="editor-title">
        <p>
          <a href="#/rules">← All rules</a>
        </p>
        <h1 id="editor-title">New rule</h1>
        <ReadOnlyNote can="view rules" />
      </section>
    );
  }
  return <Editor ruleId={ruleId} template={template} canWrite={canWrite} operation={operation} />;
}

function Editor({
  ruleId,
  template,
  canWrite,
  operation,
}: {
  ruleId: string | null;
  template?: string | undefined;
  canWrite: boolean;
  operation?: EditedOperation | undefined;
}) {
  const api = useApi();
  const { canAdmin } = useSession();
  const { groups } = useGroups();
  const { settings } = useSettings();
  const proposing = mustPropose(settings, canWrite, canAdmin);
  const [draft, setDraft] = useState<RuleDraft | null>(
    operation?.draft ?? (ruleId ? null : (templateDraft(template) ?? newDraft('Redirect'))),
  );
  // The change request about to be proposed (its dialog open), and whether review became required
  // while the page was open (a direct write refused with 409 Review required).
  const [proposal, setProposal] = useState<Proposal | null>(null);
  const [reviewRefused, setReviewRefused] = useState<'save' | 'delete' | null>(null);
  const [etag, setEtag] = useState<string | null>(null);
  const [view, setView] = useState<'form' | 'json'>('form');
  const [error, setError] = useState<ApiError | string | null>(null);
  // What failed: a save, or a try of the rule as written ("Test this rule").
  const [failedTo, setFailedTo] = useState<'save' | 'test'>('save');
  const [notice, setNotice] = useState<string | null>(() => takeFlash() ?? templateNotice(template));
  const [saving, setSaving] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState(false);
  // The pairs that would act on every request, while the person is asked to confirm them.
  const [confirmUnsafe, setConfirmUnsafe] = useState<UnsafePair[] | null>(null);
  const findings = useLint();
  const settled = useSettled(draft, CHECK_AFTER_MS);
  const nameField = useRef(false);
  // A new rule (the `n` shortcut, New rule): typing goes to its name at once.
  useEffect(() => {
    if (ruleId !== null || operation || nameField.current) return;
    nameField.current = true;
    document.getElementById(fieldId('/name'))?.focus();
  }, [ruleId, operation]);

  const load = () => {
    if (!ruleId || operation) return;
    api(
      (client) => client.GET('/v1/rules/{ruleId}', { params: { path: { ruleId } } }),
      (response) => setEtag(response.headers.get('etag')),
    )
      .then((answer) => {
        setDraft(draftOf(answer.data));
        setError(null);
      })
      .catch((failure) => setError(describeError(failure)));
  };
  useEffect(load, [ruleId]);

  if (!draft) {
    return error ? <ErrorSummary error={error} title="The rule could not be loaded." /> : <p>Loading…</p>;
  }

  /** The change request that writes the draft (or deletes the rule), for the dialog to propose. */
  function proposalOf(what: 'save' | 'delete', why?: string): Proposal {
    const name = draft?.name ? ` “${draft.name}”` : '';
    const operations: ChangeOperation[] =
      what === 'delete'
        ? [{ op: 'delete', kind: 'rule', id: ruleId ?? '' }]
        : ruleId === null
          ? [{ op: 'create', kind: 'rule', body: { ...draft } }]
          : [{ op: 'update', kind: 'rule', id: ruleId, body: { ...draft } }];
    const title =
      what === 'delete'
        ? `Delete the rule${name}`
        : ruleId === null
          ? `Create the rule${name}`
          : `Change the rule${name}`;
    return { operations, title, ...(why ? { why } : {}) };
  }

  const REQUIRED_WHY =
    'This workspace requires review: your change is applied once someone else approves it.';

  /** The author's edit of a change request's operation, saved back into it. */
  async function saveOperation() {
    if (!operation || !draft) return;
    const operations = operation.operations.map((op, index) =>
      index === operation.index ? { ...op, body: { ...draft } } : op,
    );
    try {
      await api((client) =>
        client.PATCH('/v1/change-requests/{id}', {
          params: { path: { id: operation.changeRequestId } },
          body: { operations: sentOperations(operations) },
        }),
      );
      flash('The change request was updated: it waits for a review again.');
      navigate({ page: 'change-request', id: operation.changeRequestId });
    } catch (failure) {
      setFailedTo('save');
      setError(
        bodyRefusal(failure, operation.index) ?? refusalWords('The change request was not updated', failure),
      );
    }
  }

  async function save(event: Event) {
    event.preventDefault();
    if (!draft) return;
    const unsafe = unsafePairs(draft);
    if (unsafe.length > 0) {
      setConfirmUnsafe(unsafe);
      return;
    }
    return write();
  }

  /** Saves the draft (confirmed, when it acts on every request). */
  async function write() {
    setConfirmUnsafe(null);
    if (!draft) return;
    if (operation) return saveOperation();
    if (proposing) {
      setProposal(proposalOf('save', REQUIRED_WHY));
      return;
    }
    setSaving(true);
    setNotice(null);
    setReviewRefused(null);
    try {
      // The draft is what the person wrote (in the JSON view, anything): the service judges it.
      const body = draft as never;
      if (ruleId === null) {
        const created = await api((client) => client.POST('/v1/rules', { body }));
        flash(`Rule “${created.data.name}” created.`);
        navigate({ page: 'rule', ruleId: created.data.id });
        return;
      }
      const updated = await api(
        (client) =>
          client.PUT('/v1/rules/{ruleId}', {
            params: { path: { ruleId }, header: etag ? { 'If-Match': etag } : {} },
            body,
          }),
        (response) => response.ok && setEtag(response.headers.get('etag')),
      );
      setDraft(draftOf(updated.data as Rule));
      setError(null);
      setNotice('Saved.');
    } catch (failure) {
      const conflict = failure instanceof ApiError && failure.status === 412;
      setFailedTo('save');
      if (failure instanceof ApiError && failure.code === 'REVIEW_REQUIRED') {
        setReviewRefused('save');
        setError(REVIEW_NOW_REQUIRED);
        return;
      }
      setError(conflict ? CONFLICT : failure instanceof ApiError ? failure : describeError(failure));
    } finally {
      setSaving(false);
    }
  }

  async function remove() {
    if (!ruleId) return;
    setConfirmDelete(false);
    if (proposing) {
      setProposal(proposalOf('delete', REQUIRED_WHY));
      return;
    }
    try {
      await api((client) =>
        client.DELETE('/v1/rules/{ruleId}', {
          params: { path: { ruleId }, header: etag ? { 'If-Match': etag } : {} },
        }),
      );
      flash(`Rule “${draft?.name}” deleted.`);
      navigate({ page: 'rules' });
    } catch (failure) {
      if (failure instanceof ApiError && failure.code === 'REVIEW_REQUIRED') {
        setReviewRefused('delete');
        setError(REVIEW_NOW_REQUIRED);
        return;
      }
      setError(failure instanceof ApiError && failure.status === 412 ? CONFLICT : describeError(failure));
    }
  }

  const set = (field: string) => (value: unknown) => setDraft({ ...draft, [field]: value });
  const errors = error instanceof ApiError ? errorsByPointer(error.details) : new Map<string, string[]>();
  const pairsSchema: JsonSchema = {
    type: 'array',
    items: pairSchema(draft.ruleType),
    minItems: 1,
  };
  const { id: _id, ...inlineRule } = draft;
  // The lint read the saved rule: its findings sit beside the fields they point at until it is saved
  // again. Whether a source matches every request is checked on the draft as typed instead (after a
  // pause), so that finding follows the form, before any save.
  const lintId = ruleId ?? 'new';
  const saved = ruleId
    ? findingsFor(findings, ruleId).filter((f) => !canWrite || f.code !== 'matches_everything')
    : [];
  const ruleFindings = findingsByPointer(
    [...saved, ...(settled && canWrite ? draftFindings(settled, lintId) : [])],
    lintId,
  );

  return (
    <section aria-labelledby="editor-title">
      {operation ? (
        <p>
          <a href={`#/change-requests/${encodeURIComponent(operation.changeRequestId)}`}>
            ← Change request “{operation.changeRequestTitle}”
          </a>
        </p>
      ) : (
        <p>
          <a href="#/rules">← All rules</a>
        </p>
      )}
      <h1 id="editor-title">
        {operation
          ? `Operation ${operation.index + 1}: ${ruleId ? `change the rule “${draft.name}”` : 'a new rule'}`
          : ruleId
            ? `${canWrite ? 'Edit rule' : 'Rule'} “${draft.name}”`
            : 'New rule'}
      </h1>
      {canWrite ? null : <ReadOnlyNote can="view rules" />}
      {operation ? (
        <p class="hint">
          You are editing what your change request proposes. Saving updates the change request (not the rule):
          it then waits for a review again.
        </p>
      ) : proposing ? (
        <p class="hint">
          This workspace requires review: your changes are proposed as a change request, and applied once
          someone else approves them.
        </p>
      ) : null}
      {notice ? (
        <p class="notice" role="status">
          {notice}
        </p>
      ) : null}
      <RuleSummary draft={draft} />
      {ruleId ? <RuleHitsPanel ruleId={ruleId} /> : null}
      {ruleId ? <LintFindings findings={findingsFor(findings, ruleId)} /> : null}
      <FieldErrorsContext.Provider value={errors}>
        <FieldFindingsContext.Provider value={ruleFindings}>
          <form onSubmit={save} noValidate aria-busy={saving}>
            <ErrorSummary
              error={error}
              title={
                error instanceof ApiError
                  ? failedTo === 'save'
                    ? operation
                      ? 'The change request was not updated.'
                      : proposing
                        ? 'The change was not proposed.'
                        : 'The rule was not saved.'
                    : 'The rule cannot be tested as written.'
                  : undefined
              }
            />
            <div class="tabs">
              <button type="button" aria-pressed={view === 'form'} onClick={() => setView('form')}>
                Form
              </button>
              <button type="button" aria-pressed={view === 'json'} onClick={() => setView('json')}>
                JSON
              </button>
            </div>
            {view === 'json' ? (
              // Keyed by version: a loaded or saved rule replaces the text being edited.
              <JsonView
                key={etag ?? 'new'}
                readOnly={!canWrite}
                value={draft}
                onChange={(value) => setDraft(value as RuleDraft)}
                problems={error instanceof ApiError ? (error.body?.details ?? NO_PROBLEMS) : NO_PROBLEMS}
              />
            ) : (
              // A disabled fieldset disables every field within, however deep the schema draws it.
              <fieldset class={canWrite ? 'rule-form' : 'rule-form read-only'} disabled={!canWrite}>
                <legend class="visually-hidden">The rule</legend>
                <SchemaField
                  name="name"
                  schema={NAME}
                  value={draft.name}
                  pointer="/name"
                  required
                  onChange={set('name')}
                />
                <SchemaField
                  name="description"
                  schema={DESCRIPTION}
                  value={draft.description}
                  pointer="/description"
                  required={false}
                  onChange={set('description')}
                />
                <div class="row">
                  <div class="field">
                    <label for="rule-type">Rule type</label>
                    <select
                      id="rule-type"
                      value={draft.ruleType}
                      disabled={ruleId !== null}
                      aria-describedby="rule-type-hint"
                      onChange={(e) => setDraft(withType(draft, e.currentTarget.value as RuleType))}
                    >
                      {RULE_TYPES.map((type) => (
                        <option key={type}>{type}</option>
                      ))}
                    </select>
                    <small class="hint" id="rule-type-hint">
                      {ruleTypeDescription(draft.ruleType)}{' '}
                      {ruleId ? 'A saved rule keeps its type.' : 'Changing the type starts the pairs afresh.'}
                    </small>
                  </div>
                  <SchemaField
                    name="status"
                    schema={STATUS}
                    value={draft.status}
                    pointer="/status"
                    required
                    onChange={set('status')}
                  />
                  <div class="field">
                    <label for="rule-group">Group</label>
                    <select
                      id="rule-group"
                      value={draft.groupId}
                      onChange={(e) => set('groupId')(e.currentTarget.value)}
                    >
                      <GroupOptions groups={groups} />
                    </select>
                  </div>
                </div>
                <SchemaField
                  name="isFavourite"
                  label="Pinned"
                  schema={PINNED}
                  value={draft.isFavourite}
                  pointer="/isFavourite"
                  // Unticked is sent as false: left out, a PUT would keep the rule pinned.
                  required
                  onChange={set('isFavourite')}
                />
                <SchemaField
                  name="pairs"
                  schema={pairsSchema}
                  value={draft.pairs}
                  pointer="/pairs"
                  required
                  onChange={(pairs) => set('pairs')(pairs ?? [])}
                />
              </fieldset>
            )}
            {canWrite ? (
              <div class="actions">
                <button type="submit" disabled={saving}>
                  {operation
                    ? 'Save to the change request'
                    : proposing
                      ? 'Propose change'
                      : ruleId
                        ? 'Save'
                        : 'Create rule'}
                </button>
                {!operation && !proposing && settings?.review === 'required' ? (
                  // An admin writes directly, and may still ask for a second pair of eyes.
                  <button type="button" class="secondary" onClick={() => setProposal(proposalOf('save'))}>
                    Propose instead
                  </button>
                ) : null}
                {reviewRefused ? (
                  <button type="button" onClick={() => setProposal(proposalOf(reviewRefused, REQUIRED_WHY))}>
                    {reviewRefused === 'delete' ? 'Propose deleting it' : 'Propose this change'}
                  </button>
                ) : null}
                <a
                  class="button secondary"
                  href={
                    operation
                      ? `#/change-requests/${encodeURIComponent(operation.changeRequestId)}`
                      : '#/rules'
                  }
                >
                  Cancel
                </a>
                {ruleId && !operation ? (
                  <button type="button" class="danger" onClick={() => setConfirmDelete(true)}>
                    {proposing ? 'Propose deleting' : 'Delete'}
                  </button>
                ) : null}
                {error === CONFLICT ? (
                  <button type="button" class="secondary" onClick={load}>
                    Load the current version
                  </button>
                ) : null}
              </div>
            ) : null}
          </form>
        </FieldFindingsContext.Provider>
      </FieldErrorsContext.Provider>
      <section class="test-rule" aria-labelledby="test-title">
        <h2 id="test-title">Test this rule</h2>
        <p>
          Try a request against the rule as it is now in the form, before saving it (as if it were active).
        </p>
        <TraceForm
          // Tried as if switched on: a new rule starts Inactive, and an inactive rule changes nothing.
          rules={[{ ...inlineRule, status: 'Active' }]}
          submitLabel="Test this rule"
          idPrefix="test"
          onRuleChecked={(invalid) => {
            if (invalid) {
              setFailedTo('test');
              setError(invalid);
            } else if (error instanceof ApiError && error.details.length > 0) {
              // The service has just accepted the rule as written: problems it found at the fields
              // earlier, on a save or a try, are fixed. A conflict or an unreachable service is not.
              setError(null);
            }
          }}
        />
      </section>
      {ruleId && !operation ? (
        <RuleHistory
          ruleId={ruleId}
          revision={etag}
          onRestored={(version, status) => {
            load();
            setNotice(
              `Restored from version ${version}: it is the current version now, and the rule is ${status === 'Active' ? 'active' : 'inactive'}.`,
            );
          }}
        />
      ) : null}
      {confirmDelete ? (
        <ConfirmDialog
          title={proposing ? 'Propose deleting this rule?' : 'Delete this rule?'}
          confirmLabel={proposing ? 'Go on' : 'Delete rule'}
          onConfirm={remove}
          onCancel={() => setConfirmDelete(false)}
        >
          <p>
            {proposing
              ? `“${draft.name}” will be deleted once someone else approves your change request.`
              : `“${draft.name}” will be deleted. Its versions stay in its history, and it can be restored from the Recently deleted page.`}
          </p>
        </ConfirmDialog>
      ) : null}
      {confirmUnsafe ? (
        <ConfirmDialog
          title="Save a rule that acts on every request?"
          confirmLabel={draft.status === 'Active' ? 'Save it anyway' : 'Save it, inactive'}
          onConfirm={write}
          onCancel={() => setConfirmUnsafe(null)}
        >
          {confirmUnsafe.map(({ index, sentence }) => (
            <p key={index}>{sentence}</p>
          ))}
          <p>
            {draft.status === 'Active'
              ? 'It is set Active: it acts as soon as it is saved.'
              : 'It is set Inactive: it acts only once someone switches it on.'}{' '}
            To narrow it, give the source the host or path it is meant for, or add a filter.
          </p>
        </ConfirmDialog>
      ) : null}
      {proposal ? (
        <ProposeDialog
          proposal={proposal}
          onCancel={() => setProposal(null)}
          onFieldErrors={(refusal) => {
            setProposal(null);
            setFailedTo('save');
            setError(refusal);
          }}
        />
      ) : null}
    </section>
  );
}
