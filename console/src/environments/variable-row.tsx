// One variable's row of the Environments table: read (its value in each environment, a secret's as
// ••••), or edited in place (a box per environment, the API's refusals under the box they name). The
// boxes belong to a form outside the table (a form cannot hold a row), so Enter saves.
import { useState } from 'preact/hooks';
import { ApiError, type ErrorDetail, type Variable } from '../api.js';
import { FieldErrorText } from '../forms/field-error-text.js';
import { describeError, useApi } from '../session.js';
import { bodyOf, type Cell, draftOf, dropsSecretValues, messagesAt } from './variable-draft.js';

interface RowActions {
  disabled: boolean;
  onEdit: () => void;
  onDelete: () => void;
}

export function VariableRow({
  variable,
  environments,
  actions,
}: {
  variable: Variable;
  environments: readonly string[];
  actions: RowActions | null;
}) {
  return (
    <tr>
      <th scope="row">
        <code class="variable-name">{variable.name}</code>
        {variable.secret ? <span class="tag">secret</span> : null}
        {variable.description ? <span class="hint variable-description">{variable.description}</span> : null}
      </th>
      {environments.map((environment) => (
        // On a phone each row is a card, each value led by its environment's name.
        <td key={environment} data-label={environment}>
          <ValueShown variable={variable} environment={environment} />
        </td>
      ))}
      {actions ? (
        <td class="actions" data-label="">
          <button
            type="button"
            class="secondary small"
            disabled={actions.disabled}
            aria-label={`Edit ${variable.name}`}
            onClick={actions.onEdit}
          >
            Edit
          </button>
          <button
            type="button"
            class="danger small"
            disabled={actions.disabled}
            aria-label={`Delete ${variable.name}`}
            onClick={actions.onDelete}
          >
            Delete
          </button>
        </td>
      ) : null}
    </tr>
  );
}

/** A value as the table shows it: the text, •••• for a secret's (set, never shown), or "not set". */
function ValueShown({ variable, environment }: { variable: Variable; environment: string }) {
  if (!Object.hasOwn(variable.values, environment)) return <span class="muted">not set</span>;
  const value = variable.values[environment];
  if (variable.secret || typeof value !== 'string')
    return (
      <span class="secret-value">
        <span aria-hidden="true">••••</span>
        <span class="visually-hidden">secret, set</span>
      </span>
    );
  return value === '' ? <span class="muted">(empty)</span> : <code class="variable-value">{value}</code>;
}

const FORM_ID = 'variable-form';

export function VariableEditor({
  original,
  environments,
  onDone,
}: {
  original: Variable | null;
  environments: readonly string[];
  /** `saved`: the variable's name once saved; null when cancelled. */
  onDone: (saved: string | null) => void;
}) {
  const api = useApi();
  const [draft, setDraft] = useState(() => draftOf(original));
  const [details, setDetails] = useState<ErrorDetail[]>([]);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const who = original?.name ?? 'the new variable';

  async function save(event: Event) {
    event.preventDefault();
    setBusy(true);
    try {
      const body = bodyOf(draft, original);
      const saved = original
        ? await api((client) =>
            client.PUT('/v1/variables/{name}', {
              params: {
                path: { name: original.name },
                // The version read: a change made elsewhere meanwhile is refused (412), not overwritten.
                header: { 'If-Match': `"${original.modificationDate}"` },
              },
              body,
            }),
          )
        : await api((client) => client.POST('/v1/variables', { body: { name: draft.name.trim(), ...body } }));
      onDone(saved.data.name);
    } catch (failure) {
      const refused = failure instanceof ApiError ? failure : null;
      const pointed = refused?.details ?? [];
      setDetails(pointed);
      const rest = pointed.filter((detail) => messagesAt([detail], 'row').length > 0);
      setProblem(
        refused?.status === 412
          ? `${who} was changed elsewhere since this page read it: cancel, and edit it again.`
          : pointed.length && !rest.length
            ? `${who} was not saved: see the boxes marked below.`
            : `${who} was not saved: ${rest.length ? rest.map((detail) => detail.message).join('; ') : describeError(failure)}`,
      );
    } finally {
      setBusy(false);
    }
  }

  const at = (cell: Cell) => messagesAt(details, cell);
  const box = (cell: Cell, id: string) => ({
    id,
    form: FORM_ID,
    'aria-invalid': at(cell).length ? ('true' as const) : undefined,
    'aria-describedby': at(cell).length ? `${id}-error` : undefined,
  });
  const idFor = (environment: string) => `variable-value-${environments.indexOf(environment)}`;
  const label = original?.name ?? (draft.name.trim() || 'the new variable');
  return (
    <tr class="editing">
      <th scope="row">
        {original ? (
          <code class="variable-name">{original.name}</code>
        ) : (
          <div class={at('name').length ? 'field invalid' : 'field'}>
            <label for="variable-name">Name</label>
            <input
              {...box('name', 'variable-name')}
              type="text"
              spellcheck={false}
              autocomplete="off"
              maxLength={64}
              placeholder="e.g. API"
              value={draft.name}
              onInput={(event) => setDraft({ ...draft, name: event.currentTarget.value })}
            />
            <FieldErrorText id="variable-name" messages={at('name')} />
          </div>
        )}
        <div class={at('description').length ? 'field invalid' : 'field'}>
          <label for="variable-description">
            Description <span class="optional">(optional)</span>
          </label>
          <input
            {...box('description', 'variable-description')}
            type="text"
            maxLength={500}
            value={draft.description}
            onInput={(event) => setDraft({ ...draft, description: event.currentTarget.value })}
          />
          <FieldErrorText id="variable-description" messages={at('description')} />
        </div>
        <div class="field checkbox">
          <input
            {...box('secret', 'variable-secret')}
            type="checkbox"
            checked={draft.secret}
            onChange={(event) => setDraft({ ...draft, secret: event.currentTarget.checked })}
          />
          <label for="variable-secret">Secret</label>
          <FieldErrorText id="variable-secret" messages={at('secret')} />
        </div>
        {original?.secret ? (
          <small class="hint">
            Its values are never shown. Leave every box empty to keep them; type in any box (or untick Secret)
            and the values typed replace them all.
          </small>
        ) : draft.secret ? (
          <small class="hint">Once saved, its values are never shown again, here or in the API.</small>
        ) : null}
      </th>
      {environments.map((environment) => {
        const id = idFor(environment);
        const cell = { environment };
        const set = Object.hasOwn(original?.values ?? {}, environment);
        return (
          <td key={environment} class={at(cell).length ? 'invalid' : undefined} data-label={environment}>
            <label for={id} class="visually-hidden">
              {`${label} in ${environment}`}
            </label>
            <input
              {...box(cell, id)}
              // A secret is typed where nobody reads over a shoulder, and never filled in by the browser.
              type={draft.secret ? 'password' : 'text'}
              autocomplete={draft.secret ? 'new-password' : 'off'}
              spellcheck={false}
              placeholder={original?.secret ? (set ? '•••• (kept)' : 'not set') : 'not set'}
              value={draft.values[environment] ?? ''}
              onInput={(event) =>
                setDraft({ ...draft, values: { ...draft.values, [environment]: event.currentTarget.value } })
              }
            />
            <FieldErrorText id={id} messages={at(cell)} />
          </td>
        );
      })}
      <td class="actions" data-label="">
        {dropsSecretValues(draft, original) ? (
          <p class="hint">
            No longer secret, it keeps only the values typed now: the boxes left empty will have none.
          </p>
        ) : null}
        {problem ? (
          <p class="field-error" role="alert">
            {problem}
          </p>
        ) : null}
        <button type="submit" form={FORM_ID} disabled={busy}>
          {busy ? 'Saving…' : original ? `Save ${original.name}` : 'Add variable'}
        </button>
        <button type="button" class="secondary" onClick={() => onDone(null)}>
          Cancel
        </button>
        {/* The boxes above belong to this form (form="…"), so Enter in any of them saves. */}
        <form id={FORM_ID} onSubmit={save} noValidate />
      </td>
    </tr>
  );
}
