// Change requests in words a person reads: their states, what each operation does, and the service's
// refusals with the operations they point at named (1-based, as people count) instead of as JSON
// pointers, and a merge conflict as the rules and groups that moved.
// Plain data in and out (no page, no client), so that it is checked on its own.
import type { ChangeOperation, ChangeRequest, ErrorDetail } from '../api.js';

export type State = ChangeRequest['state'];

export const STATE_WORDS: Record<State, string> = {
  open: 'Open',
  approved: 'Approved',
  rejected: 'Changes requested',
  merged: 'Merged',
  closed: 'Closed',
};

/** What a state means for whoever reads the page. */
export const STATE_MEANING: Record<State, string> = {
  open: 'It waits for a review.',
  approved: 'It was approved and may be merged.',
  rejected: 'A reviewer asked for changes: its author updates it, or it is closed.',
  merged: 'It was merged: its operations were applied.',
  closed: 'It was closed without being merged.',
};

export const UNDER_WAY: readonly State[] = ['open', 'approved', 'rejected'];

/** What the objects an operation touches are called: their names, once read. */
export type Names = Map<string, string>;
export const nameKey = (kind: ChangeOperation['kind'], id: string) => `${kind} ${id}`;

const bodyName = (operation: ChangeOperation): string | undefined => {
  const name = (operation.body as { name?: unknown } | undefined)?.name;
  return typeof name === 'string' && name !== '' ? name : undefined;
};

/** "the rule “Send API to staging”", or by its id when its name is not known. */
export function objectWords(kind: ChangeOperation['kind'], id: string, names: Names): string {
  const name = names.get(nameKey(kind, id));
  return name ? `the ${kind} “${name}”` : `the ${kind} ${id}`;
}

/** "Change the rule “X”", "Create a rule “Y”", "Delete the group “Z”". */
export function operationWords(operation: ChangeOperation, names: Names): string {
  const { op, kind, id } = operation;
  if (op === 'create') {
    const name = bodyName(operation);
    return `Create a new ${kind}${name ? ` “${name}”` : ''}`;
  }
  const target = objectWords(kind, id ?? '', names);
  return op === 'delete' ? `Delete ${target}` : `Change ${target}`;
}

/** "operation 2, pair 1 › source › value" from "/operations/1/body/pairs/0/source/value". */
export function pointerWords(pointer: string): string {
  const parts = pointer.split('/').slice(1);
  const words: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i] as string;
    const next = parts[i + 1];
    if ((part === 'operations' || part === 'pairs') && next !== undefined && /^\d+$/.test(next)) {
      words.push(`${part === 'operations' ? 'operation' : 'pair'} ${Number(next) + 1}`);
      i++;
    } else if (part === 'body') continue;
    else if (/^\d+$/.test(part)) words.push(`item ${Number(part) + 1}`);
    else words.push(part);
  }
  return words.join(' › ');
}

/** A refusal as a sentence: the service's message, and each detail with where it points in words. */
export function refusalSentence(what: string, message: string, details: ErrorDetail[]): string {
  const said = details.map((d) => (d.path ? `${pointerWords(d.path)}: ${d.message}` : d.message));
  return `${what}: ${message}${said.length ? ` (${said.join('; ')})` : ''}.`;
}

/** One object a conflicting merge names: what moved, in words, and where to see it now. */
export interface Moved {
  words: string;
  href: string | null;
}

/** The rules and groups a 409 conflict names, from its details (`/operations/N/id`). */
export function movedObjects(details: ErrorDetail[], operations: ChangeOperation[], names: Names): Moved[] {
  return details.map((detail) => {
    const index = /^\/operations\/(\d+)/.exec(detail.path)?.[1];
    const operation = index === undefined ? undefined : operations[Number(index)];
    if (!operation?.id) return { words: detail.message, href: null };
    const revision = /at revision (\d+)/.exec(detail.message)?.[1];
    const target = objectWords(operation.kind, operation.id, names);
    return {
      words: `${target[0]?.toUpperCase()}${target.slice(1)} was changed by someone else${revision ? ` (revision ${revision})` : ''} after this change request was written`,
      href: operation.kind === 'rule' ? `#/rules/${encodeURIComponent(operation.id)}` : '#/groups',
    };
  });
}

/** A browser compile status in words. */
export function browserWords(status: string | null): string {
  switch (status) {
    case 'compiled':
      return 'runs in the browser';
    case 'partial':
      return 'runs in part in the browser';
    case 'not_compiled':
      return 'cannot run in the browser';
    default:
      return 'is not in the browser (absent or inactive)';
  }
}
