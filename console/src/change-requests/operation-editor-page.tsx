// Its author edits one rule operation of a change request in the rule editor: the rule as the
// operation would leave it (what is stored now, with what the operation changes), saved back into the
// change request rather than onto the rule.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, type ChangeRequest, type Rule } from '../api.js';
import { draftOf, newDraft, type RuleDraft } from '../rules/rule-draft.js';
import { RuleEditor } from '../rules/rule-editor.js';
import { describeError, useApi, useSession } from '../session.js';
import { UNDER_WAY } from './change-request-words.js';

export function OperationEditorPage({ id, index }: { id: string; index: number }) {
  const api = useApi();
  const { userId } = useSession();
  const [cr, setCr] = useState<ChangeRequest | null>(null);
  const [draft, setDraft] = useState<RuleDraft | null>(null);
  const [problem, setProblem] = useState<string | null>(null);

  useEffect(() => {
    let current = true;
    (async () => {
      const answer = await api((client) =>
        client.GET('/v1/change-requests/{id}', { params: { path: { id } } }),
      );
      const found = answer.data;
      const operation = found.operations[index];
      if (!current) return;
      setCr(found);
      if (found.author !== userId) return setProblem('Only its author edits a change request.');
      if (!UNDER_WAY.includes(found.state)) return setProblem('It is no longer open: it cannot be edited.');
      if (operation?.kind !== 'rule' || operation.op === 'delete')
        return setProblem(`It has no operation ${index + 1} on a rule to edit here.`);
      const body = (operation.body ?? {}) as Partial<RuleDraft>;
      if (operation.op === 'create') {
        const base = newDraft((body.ruleType ?? 'Redirect') as RuleDraft['ruleType']);
        return setDraft({ ...base, ...body } as RuleDraft);
      }
      const rule = await api((client) =>
        client.GET('/v1/rules/{ruleId}', { params: { path: { ruleId: operation.id as string } } }),
      );
      if (current) setDraft({ ...draftOf(rule.data as Rule), ...body } as RuleDraft);
    })().catch(
      (failure) =>
        current &&
        setProblem(
          failure instanceof ApiError && failure.status === 404
            ? 'The change request, or the rule it changes, no longer exists.'
            : describeError(failure),
        ),
    );
    return () => {
      current = false;
    };
  }, [api, id, index, userId]);

  if (problem || !cr || !draft) {
    return (
      <section aria-labelledby="editor-title">
        <p>
          <a href={`#/change-requests/${encodeURIComponent(id)}`}>← The change request</a>
        </p>
        <h1 id="editor-title">Operation {index + 1}</h1>
        {problem ? (
          <p class="error" role="alert">
            {problem}
          </p>
        ) : (
          <p>Loading…</p>
        )}
      </section>
    );
  }
  const operation = cr.operations[index];
  return (
    <RuleEditor
      ruleId={operation?.op === 'update' ? (operation.id ?? null) : null}
      operation={{
        changeRequestId: cr.id,
        changeRequestTitle: cr.title,
        index,
        operations: cr.operations,
        draft,
      }}
    />
  );
}
