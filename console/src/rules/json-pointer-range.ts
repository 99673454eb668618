// Where a JSON Pointer (`/pairs/0/destination`, as the API's error details and the lint's findings
// write them) is in the text of a JSON document: found in the parse tree CodeMirror keeps, so a
// problem is marked at its line however the text is indented. A pointer to something absent (a
// required property left out) is marked at the nearest thing that is there: the object it belongs in.
import { ensureSyntaxTree } from '@codemirror/language';
import type { EditorState } from '@codemirror/state';

/** A node of the parse tree (its type is @lezer/common's, a dependency of CodeMirror's, not ours). */
type SyntaxNode = NonNullable<ReturnType<typeof ensureSyntaxTree>>['topNode'];
const VALUES = new Set(['Object', 'Array', 'String', 'Number', 'True', 'False', 'Null']);

const unescapeToken = (token: string) => token.replace(/~1/g, '/').replace(/~0/g, '~');

function values(node: SyntaxNode): SyntaxNode[] {
  const found: SyntaxNode[] = [];
  for (let child = node.firstChild; child; child = child.nextSibling)
    if (VALUES.has(child.name)) found.push(child);
  return found;
}

function propertyNamed(state: EditorState, object: SyntaxNode, name: string): SyntaxNode | undefined {
  for (let child = object.firstChild; child; child = child.nextSibling) {
    if (child.name !== 'Property') continue;
    const key = child.getChild('PropertyName');
    if (!key) continue;
    try {
      if (JSON.parse(state.sliceDoc(key.from, key.to)) === name) return child;
    } catch {
      // A name that does not parse yet: not this one.
    }
  }
  return undefined;
}

/** The text range to mark for `pointer`: the property (or item) it names, or the nearest present parent. */
export function pointerRange(state: EditorState, pointer: string): { from: number; to: number } | undefined {
  const tree = ensureSyntaxTree(state, state.doc.length, 500);
  if (!tree) return undefined;
  let node = values(tree.topNode)[0];
  if (!node) return undefined;
  // The part to mark: a property's name and value, an item, or the whole document.
  let marked: SyntaxNode = node;
  const tokens = pointer === '' ? [] : pointer.split('/').slice(1).map(unescapeToken);
  for (const token of tokens) {
    let next: SyntaxNode | undefined;
    let mark: SyntaxNode | undefined;
    if (node.name === 'Object') {
      const property = propertyNamed(state, node, token);
      next = property ? values(property).at(-1) : undefined;
      mark = property;
    } else if (node.name === 'Array' && /^\d+$/.test(token)) {
      next = values(node)[Number(token)];
      mark = next;
    }
    if (!next || !mark) break;
    node = next;
    marked = mark;
  }
  // A long object or array is marked on its first line only.
  const line = state.doc.lineAt(marked.from);
  return { from: marked.from, to: Math.min(marked.to, line.to) };
}
