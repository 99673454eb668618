// How CodeMirror looks in the console (the JSON view, and the form's code and body fields): the
// console's colour variables, which reach into the editors' shadow roots (custom properties
// inherit), so light and dark follow the page. Each colour is readable on its paper in both schemes.
import { HighlightStyle } from '@codemirror/language';
import { EditorView } from '@codemirror/view';
import { tags } from '@lezer/highlight';

export const CODE_THEME = EditorView.theme({
  '&': {
    color: 'var(--ink)',
    backgroundColor: 'var(--paper)',
    border: '1px solid var(--control-line)',
    borderRadius: '4px',
    maxHeight: '70vh',
    fontSize: '0.9rem',
  },
  '&.cm-focused': { outline: '3px solid var(--focus)', outlineOffset: '2px' },
  '.cm-scroller': {
    fontFamily: 'ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace',
    minHeight: '12rem',
  },
  '.cm-content': { caretColor: 'var(--ink)' },
  '.cm-gutters': {
    backgroundColor: 'var(--wash)',
    color: 'var(--muted)',
    borderRight: '1px solid var(--line)',
  },
  '.cm-tooltip': { backgroundColor: 'var(--paper)', color: 'var(--ink)', border: '1px solid var(--line)' },
});

/** A field's editor is shorter than the JSON view's: a body or a script of a few lines. */
export const FIELD_THEME = EditorView.theme({
  '.cm-scroller': { minHeight: '6rem', maxHeight: '24rem' },
});

export const CODE_HIGHLIGHT = HighlightStyle.define([
  { tag: [tags.propertyName, tags.attributeName], color: 'var(--accent)' },
  { tag: tags.string, color: 'var(--ok)' },
  { tag: [tags.number, tags.atom], color: 'var(--warn-ink)' },
  { tag: [tags.bool, tags.null, tags.keyword], color: 'var(--danger)' },
  { tag: tags.tagName, color: 'var(--accent)', fontWeight: '600' },
  { tag: tags.comment, color: 'var(--muted)', fontStyle: 'italic' },
  { tag: [tags.brace, tags.squareBracket, tags.separator, tags.angleBracket], color: 'var(--muted)' },
]);
