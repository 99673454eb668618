// Environments and variables: one table, variables down and environments across, each cell the
// variable's value there (a secret's as •••• only: the API never gives it back). Editors add and
// delete environments, and add, edit and delete variables in their rows; the API's refusals are said
// at the cells they point at. Everyone else reads the table.
import { useState } from 'preact/hooks';
import type { Variable } from '../api.js';
import { refusalWords } from '../change-requests/refusal-words.js';
import { useApi, useSession } from '../session.js';
import { ConfirmDialog } from '../ui/confirm.js';
import { ReadOnlyNote } from '../ui/read-only-note.js';
import { Said } from '../ui/said.js';
import { DEFAULT_ENVIRONMENT, useEnvironments } from './environment-context.js';
import { NewEnvironmentForm } from './new-environment-form.js';
import { VariableEditor, VariableRow } from './variable-row.js';

/** The row being edited: a new variable's, or an existing one's by name. */
type Editing = { name: string | null };

export function EnvironmentsPage() {
  const api = useApi();
  const { canWrite } = useSession();
  const { names, variables, reload } = useEnvironments();
  const [editing, setEditing] = useState<Editing | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [deletingEnvironment, setDeletingEnvironment] = useState<string | null>(null);
  const [deletingVariable, setDeletingVariable] = useState<Variable | null>(null);

  /** A notice of what was done, or (with the failure) the refusal in words. */
  const said = (what: string, failure?: unknown) => {
    setNotice(failure === undefined ? what : null);
    setError(failure === undefined ? null : refusalWords(what, failure));
  };

  async function deleteEnvironment(name: string) {
    setDeletingEnvironment(null);
    try {
      await api((client) => client.DELETE('/v1/environments/{name}', { params: { path: { name } } }));
      said(`The environment ${name} is deleted, with its values.`);
    } catch (failure) {
      said(`The environment ${name} was not deleted`, failure);
    }
    reload();
  }

  async function deleteVariable(variable: Variable) {
    setDeletingVariable(null);
    try {
      await api((client) =>
        client.DELETE('/v1/variables/{name}', { params: { path: { name: variable.name } } }),
      );
      said(`The variable ${variable.name} is deleted.`);
    } catch (failure) {
      said(`The variable ${variable.name} was not deleted`, failure);
    }
    reload();
  }

  const columns = names ?? [];
  const editable = canWrite && editing === null;
  return (
    <section aria-labelledby="environments-title">
      <div class="page-head">
        <h1 id="environments-title">Environments</h1>
        {editable && variables ? (
          <button type="button" onClick={() => setEditing({ name: null })}>
            Add a variable
          </button>
        ) : null}
      </div>
      <p>
        A rule may say <code>{'{{API}}'}</code> in its destination, source, headers or bodies: each
        environment gives the variable <code>API</code> its own value, so the same rules send requests to{' '}
        <code>localhost</code> in <code>dev</code> and to staging in <code>staging</code>. The proxy, the
        extension and every key choose their environment; the one chosen at the top of the console is the one
        Try it, the lint and Test this rule use.
      </p>
      {canWrite ? null : <ReadOnlyNote can="view environments and variables" />}
      <Said notice={notice} error={error} />
      {canWrite ? <NewEnvironmentForm onAdded={(name) => said(`The environment ${name} is added.`)} /> : null}
      {names === null || variables === null ? <p>Loading…</p> : null}
      {variables?.length === 0 && editing === null ? <p class="empty">No variables yet.</p> : null}
      {names && variables && (variables.length > 0 || editing) ? (
        <div class="table-wrap">
          <table class="variables cards">
            <caption class="visually-hidden">
              Variables down, environments across: each variable's value in each environment
            </caption>
            <thead>
              <tr>
                <th scope="col">Variable</th>
                {columns.map((environment) => (
                  <th scope="col" key={environment}>
                    <span class="environment-name">{environment}</span>
                    {editable && environment !== DEFAULT_ENVIRONMENT ? (
                      <button
                        type="button"
                        class="danger small"
                        aria-label={`Delete the environment ${environment}`}
                        onClick={() => setDeletingEnvironment(environment)}
                      >
                        Delete
                      </button>
                    ) : null}
                  </th>
                ))}
                {canWrite ? (
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                ) : null}
              </tr>
            </thead>
            <tbody>
              {variables.map((variable) =>
                editing?.name === variable.name ? (
                  <VariableEditor
                    key={variable.name}
                    original={variable}
                    environments={columns}
                    onDone={(saved) => {
                      setEditing(null);
                      if (saved) said(`The variable ${saved} is saved.`);
                      reload();
                    }}
                  />
                ) : (
                  <VariableRow
                    key={variable.name}
                    variable={variable}
                    environments={columns}
                    actions={
                      canWrite
                        ? {
                            disabled: editing !== null,
                            onEdit: () => setEditing({ name: variable.name }),
                            onDelete: () => setDeletingVariable(variable),
                          }
                        : null
                    }
                  />
                ),
              )}
              {editing?.name === null ? (
                <VariableEditor
                  original={null}
                  environments={columns}
                  onDone={(saved) => {
                    setEditing(null);
                    if (saved) said(`The variable ${saved} is added.`);
                    reload();
                  }}
                />
              ) : null}
            </tbody>
          </table>
        </div>
      ) : null}
      {deletingEnvironment ? (
        <ConfirmDialog
          title={`Delete the environment ${deletingEnvironment}?`}
          confirmLabel="Delete environment"
          onConfirm={() => deleteEnvironment(deletingEnvironment)}
          onCancel={() => setDeletingEnvironment(null)}
        >
          <p>
            {valuesIn(variables, deletingEnvironment)} A proxy, an extension or a runtime that follows it is
            refused until it chooses another; a key bound to it must be revoked first.
          </p>
        </ConfirmDialog>
      ) : null}
      {deletingVariable ? (
        <ConfirmDialog
          title={`Delete the variable ${deletingVariable.name}?`}
          confirmLabel="Delete variable"
          onConfirm={() => deleteVariable(deletingVariable)}
          onCancel={() => setDeletingVariable(null)}
        >
          <p>
            Its values go in every environment; a rule that says <code>{`{{${deletingVariable.name}}}`}</code>{' '}
            then keeps those words as written.
          </p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}

/** How many values go with an environment, in words. */
function valuesIn(variables: readonly Variable[] | null, environment: string): string {
  const count = (variables ?? []).filter((variable) => Object.hasOwn(variable.values, environment)).length;
  if (count === 0) return 'No variable has a value in it.';
  return count === 1
    ? 'The value one variable has in it goes.'
    : `The values ${count} variables have in it go.`;
}
