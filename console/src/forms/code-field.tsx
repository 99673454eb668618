// A body or a script written in CodeMirror, coloured in its language, in place of a text area. It
// edits the same string as the text area did: every keystroke goes to the draft, and a value changed
// from outside (Pretty-print) replaces the text. Labelled, described and marked invalid as any other
// field; the element with the field's id forwards focus to the editor, so that the error summary's
// link to the field still lands where typing goes.
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { bracketMatching, syntaxHighlighting } from '@codemirror/language';
import { Compartment, EditorState } from '@codemirror/state';
import { EditorView, keymap, lineNumbers } from '@codemirror/view';
import { useEffect, useRef } from 'preact/hooks';
import { CODE_HIGHLIGHT, CODE_THEME, FIELD_THEME } from '../ui/code-theme.js';
import type { CodeKind } from './body-kind.js';
import { languageOf } from './code-languages.js';

interface CodeFieldProps {
  id: string;
  label: string;
  value: string;
  kind: CodeKind;
  onChange: (text: string) => void;
  describedBy?: string | undefined;
  invalid: boolean;
}

export function CodeField({ id, label, value, kind, onChange, describedBy, invalid }: CodeFieldProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const language = useRef(new Compartment());
  const attributes = useRef(new Compartment());
  const current = useRef(onChange);
  current.current = onChange;

  const contentAttributes = () =>
    EditorView.contentAttributes.of({
      'aria-label': label,
      'aria-multiline': 'true',
      spellcheck: 'false',
      ...(describedBy ? { 'aria-describedby': describedBy } : {}),
      ...(invalid ? { 'aria-invalid': 'true' } : {}),
    });

  useEffect(() => {
    if (!host.current) return;
    // A reader's form is a disabled fieldset: the editor is read-only there too.
    const readOnly = host.current.closest('fieldset[disabled]') !== null;
    const root = host.current.shadowRoot ?? host.current.attachShadow({ mode: 'open' });
    const editor = new EditorView({
      root,
      parent: root,
      state: EditorState.create({
        doc: value,
        extensions: [
          lineNumbers(),
          history(),
          bracketMatching(),
          language.current.of(languageOf(kind)),
          syntaxHighlighting(CODE_HIGHLIGHT),
          CODE_THEME,
          FIELD_THEME,
          // Tab is left to the page (it moves on, as from a text area): no keyboard trap.
          keymap.of([...defaultKeymap, ...historyKeymap]),
          EditorView.lineWrapping,
          EditorState.readOnly.of(readOnly),
          EditorView.editable.of(!readOnly),
          attributes.current.of(contentAttributes()),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) current.current(update.state.doc.toString());
          }),
        ],
      }),
    });
    view.current = editor;
    // The error summary's link focuses the field's id: typing goes on in the editor.
    const host_ = host.current;
    const forward = (event: FocusEvent) => event.target === host_ && editor.focus();
    host_.addEventListener('focus', forward);
    return () => {
      host_.removeEventListener('focus', forward);
      editor.destroy();
      view.current = null;
    };
  }, []);

  // A value set from outside (Pretty-print, a new type): the text follows.
  useEffect(() => {
    const editor = view.current;
    if (!editor || editor.state.doc.toString() === value) return;
    editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: value } });
  }, [value]);

  useEffect(() => {
    view.current?.dispatch({ effects: language.current.reconfigure(languageOf(kind)) });
  }, [kind]);

  useEffect(() => {
    view.current?.dispatch({ effects: attributes.current.reconfigure(contentAttributes()) });
  }, [label, describedBy, invalid]);

  return <div class="code-editor" id={id} ref={host} tabIndex={-1} />;
}
