// One operation of a change request, side by side: the rule or group as it is stored now (before) and
// as the operation would leave it (after), field by field in words ("pair 1 › source › value"), and
// for a rule what it does in plain sentences, before and after. A create has no before, a delete no
// after; a merged change request shows the values it wrote.
import type { ComponentChildren } from 'preact';
import type { ChangeOperation, Group } from '../api.js';
import { draftOf } from '../rules/rule-draft.js';
import { RuleSummary } from '../rules/rule-summary.js';
import { type FieldChange, versionDiff } from '../rules/version-diff.js';
import { type Names, operationWords } from './change-request-words.js';

/** What is stored now of an operation's object: it, or gone. */
export type Current = Record<string, unknown> | 'missing';

const LABELS: Record<string, string> = { groupId: 'group', ruleType: 'rule type' };

function labelled(changes: FieldChange[], groups: Group[] | null): FieldChange[] {
  const groupName = (value: string | undefined) => {
    if (value === undefined) return undefined;
    if (value === '' || value === 'null') return '(no group)';
    if (value.startsWith('$')) return `the new group ${value.slice(1)}`;
    const group = groups?.find((g) => g.id === value);
    return group ? group.name : value;
  };
  return changes.map((change) => {
    const field = LABELS[change.field] ?? change.field;
    if (change.field !== 'groupId') return { ...change, field };
    const before = groupName(change.before);
    const after = groupName(change.after);
    return { field, ...(before === undefined ? {} : { before }), ...(after === undefined ? {} : { after }) };
  });
}

export function SideBySide({
  changes,
  caption,
  beforeWords = '(not set)',
  afterWords = '(removed)',
}: {
  changes: FieldChange[];
  caption: string;
  beforeWords?: string;
  afterWords?: string;
}) {
  if (changes.length === 0) return <p class="diff-none">It changes nothing.</p>;
  return (
    <table class="diff side-by-side">
      <caption class="visually-hidden">{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Field</th>
          <th scope="col">Before</th>
          <th scope="col">After</th>
        </tr>
      </thead>
      <tbody>
        {changes.map(({ field, before, after }) => (
          <tr key={field}>
            <th scope="row">{field}</th>
            <td data-label="Before">
              {before === undefined ? (
                <span class="absent">{beforeWords}</span>
              ) : before === '' ? (
                <span class="absent">(empty)</span>
              ) : (
                <del>{before}</del>
              )}
            </td>
            <td data-label="After">
              {after === undefined ? (
                <span class="absent">{afterWords}</span>
              ) : after === '' ? (
                <span class="absent">(empty)</span>
              ) : (
                <ins>{after}</ins>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** A rule's plain sentences, when the value is rule-shaped enough to say them. */
function Sentences({ rule }: { rule: Record<string, unknown> }) {
  if (!Array.isArray(rule.pairs) || typeof rule.ruleType !== 'string') return null;
  return <RuleSummary draft={draftOf(rule as never)} />;
}

function Columns({ before, after }: { before: ComponentChildren; after: ComponentChildren }) {
  return (
    <div class="columns">
      <div>
        <h4>Before</h4>
        {before}
      </div>
      <div>
        <h4>After</h4>
        {after}
      </div>
    </div>
  );
}

export function OperationView({
  index,
  operation,
  current,
  names,
  groups,
  merged,
  edit,
}: {
  index: number;
  operation: ChangeOperation;
  /** The object stored now (undefined while read; none for a create). */
  current: Current | undefined;
  names: Names;
  groups: Group[] | null;
  /** The revision it was merged at, when it was. */
  merged: number | null;
  /** Where its author edits it, when they may. */
  edit: ComponentChildren;
}) {
  const { op, kind, id } = operation;
  const body = (operation.body ?? {}) as Record<string, unknown>;
  const title = `${index + 1}. ${operationWords(operation, names)}`;
  const caption = `What operation ${index + 1} changes`;
  let content: ComponentChildren;
  if (op === 'create') {
    content = (
      <>
        <p class="hint">A new {kind}: nothing before it.</p>
        <SideBySide changes={labelled(versionDiff({}, body), groups)} caption={caption} beforeWords="(new)" />
        {kind === 'rule' ? (
          <Columns before={<p class="absent">(none)</p>} after={<Sentences rule={body} />} />
        ) : null}
      </>
    );
  } else if (current === undefined) {
    content = <p>Loading what is stored now…</p>;
  } else if (current === 'missing') {
    content =
      merged === null ? (
        <p class="error">This {kind} no longer exists: the operation cannot be applied as it is.</p>
      ) : (
        <p class="hint">Its version from before the merge is no longer kept.</p>
      );
  } else if (op === 'delete') {
    // Deleted whole: what it is and does, not each of its fields going.
    content = (
      <>
        <p>
          The {kind}{' '}
          {kind === 'rule' ? `(${String(current.ruleType)}, ${String(current.status).toLowerCase()})` : ''} is
          deleted{kind === 'group' ? ': its rules are ungrouped, not deleted' : ''}.
        </p>
        {kind === 'rule' ? (
          <Columns before={<Sentences rule={current} />} after={<p class="absent">(deleted)</p>} />
        ) : null}
      </>
    );
  } else {
    // An update keeps the fields it leaves out, as PUT does.
    const after = { ...current, ...body };
    content = (
      <>
        <SideBySide changes={labelled(versionDiff(current, after), groups)} caption={caption} />
        {kind === 'rule' ? (
          <Columns before={<Sentences rule={current} />} after={<Sentences rule={after} />} />
        ) : null}
      </>
    );
  }
  return (
    <li class="operation">
      <h3>
        {kind === 'rule' && id && op !== 'create' ? (
          <a href={`#/rules/${encodeURIComponent(id)}`}>{title}</a>
        ) : (
          title
        )}
      </h3>
      {merged !== null && op !== 'create' ? (
        <p class="hint">
          Merged as revision {merged}: “before” is the {kind} as it was just before it.
        </p>
      ) : null}
      {content}
      {edit}
    </li>
  );
}
