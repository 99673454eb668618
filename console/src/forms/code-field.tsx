// A body or a script written in CodeMirror, coloured in its language, in place of a text area. It
// edits the same string as the text area did: every keystroke goes to the draft, and a value changed
// from outside (Pretty-print) replaces the text. Labelled, described and marked invalid as any other
// field; the element with the field's id forwards focus to the editor, so that the error summary's
// link to the field still lands where typing goes. Typing `{{` offers the workspace's variables as
// the form's text boxes do (forms/variable-text.tsx: the same list, keys and words); the editor sits
// in a shadow root, which an aria-activedescendant cannot reach into, so the live region says the
// variable the arrows are on.
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { bracketMatching, syntaxHighlighting } from '@codemirror/language';
import { Compartment, EditorState, Prec } from '@codemirror/state';
import { EditorView, type KeyBinding, keymap, lineNumbers } from '@codemirror/view';
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { useEnvironments } from '../environments/environment-context.js';
import { CODE_HIGHLIGHT, CODE_THEME, FIELD_THEME } from '../ui/code-theme.js';
import type { CodeKind } from './body-kind.js';
import { languageOf } from './code-languages.js';
import {
  complete,
  matchingNames,
  type OpenReference,
  openReference,
  referenceNotes,
  takesVariables,
} from './variable-references.js';
import { OFFERED, VariableChoices, VariableNotes } from './variable-text.js';

interface CodeFieldProps {
  id: string;
  /** The field's JSON Pointer: whether it takes `{{NAME}}`. */
  name?: string | undefined;
  label: string;
  value: string;
  kind: CodeKind;
  onChange: (text: string) => void;
  describedBy?: string | undefined;
  invalid: boolean;
}

export function CodeField({ id, name, label, value, kind, onChange, describedBy, invalid }: CodeFieldProps) {
  const { variables, chosen } = useEnvironments();
  const offers = takesVariables(name) && Boolean(variables);
  const [reference, setReference] = useState<OpenReference | null>(null);
  const [active, setActive] = useState(0);
  const names =
    offers && reference && variables
      ? matchingNames(
          variables.map((variable) => variable.name),
          reference.prefix,
        ).slice(0, OFFERED)
      : [];
  const notes = offers && variables ? referenceNotes(value, variables, chosen) : [];
  const listId = `${id}-variables`;
  const notesId = `${id}-variable-notes`;
  // What the editor's keys and listeners (made once) read of the offer as it is now.
  const offer = useRef({ offers, names, active, reference });
  offer.current = { offers, names, active, reference };
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
      ...(describedBy || notes.length
        ? { 'aria-describedby': [describedBy, notes.length ? notesId : ''].filter(Boolean).join(' ') }
        : {}),
      ...(invalid ? { 'aria-invalid': 'true' } : {}),
    });

  /** Writes `{{NAME}}` over the reference being typed, the caret after it. */
  const choose = (editor: EditorView, chosenName: string) => {
    const open = offer.current.reference;
    const selection = editor.state.selection.main;
    if (!open) return;
    const line = editor.state.doc.lineAt(selection.head);
    const done = complete(
      line.text,
      selection.head - line.from,
      { start: open.start - line.from, prefix: open.prefix },
      chosenName,
    );
    editor.dispatch({
      changes: { from: line.from, to: line.to, insert: done.text },
      selection: { anchor: line.from + done.caret },
    });
    setReference(null);
  };

  /** Opens, narrows or closes the offer after the text or the caret moved. */
  const follow = (state: EditorState) => {
    const selection = state.selection.main;
    const line = state.doc.lineAt(selection.head);
    const found =
      offer.current.offers && selection.empty ? openReference(line.text, selection.head - line.from) : null;
    const next = found ? { start: line.from + found.start, prefix: found.prefix } : null;
    if (next?.prefix !== offer.current.reference?.prefix || !next) setActive(0);
    setReference(next);
  };

  /** The offer's keys, before the editor's own: only while names are offered. */
  const move = (by: number) => () => {
    const { names: offered, active: at } = offer.current;
    if (!offered.length) return false;
    setActive((at + by + offered.length) % offered.length);
    return true;
  };
  // Enter would break the line, Tab leave the editor: both write the name instead.
  const write = (editor: EditorView) => {
    const { names: offered, active: at } = offer.current;
    if (!offered.length) return false;
    choose(editor, offered[at] as string);
    return true;
  };
  const close = () => {
    if (!offer.current.names.length) return false;
    setReference(null);
    return true;
  };
  const offerKeys: KeyBinding[] = [
    { key: 'ArrowDown', run: move(1) },
    { key: 'ArrowUp', run: move(-1) },
    { key: 'Enter', run: write },
    { key: 'Tab', run: write },
    { key: 'Escape', run: close },
  ];

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
          Prec.highest(keymap.of(offerKeys)),
          // Tab is left to the page (it moves on, as from a text area): no keyboard trap.
          keymap.of([...defaultKeymap, ...historyKeymap]),
          EditorView.lineWrapping,
          EditorState.readOnly.of(readOnly),
          EditorView.editable.of(!readOnly),
          attributes.current.of(contentAttributes()),
          EditorView.updateListener.of((update) => {
            if (update.docChanged) current.current(update.state.doc.toString());
            if (update.docChanged || update.selectionSet) follow(update.state);
          }),
          EditorView.domEventHandlers({ blur: () => setReference(null) }),
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

  // A value set from outside (Pretty-print, a new type): the text follows. A layout effect, run as
  // the render is committed: a plain effect waits for the next frame, and when keys come faster than
  // frames, Preact runs it just before the next render, with the value of the render before, so the
  // editor was set back to that older text, which the form then took, and so on: the page hung.
  useLayoutEffect(() => {
    const editor = view.current;
    if (!editor || editor.state.doc.toString() === value) return;
    editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: value } });
  }, [value]);

  useEffect(() => {
    view.current?.dispatch({ effects: language.current.reconfigure(languageOf(kind)) });
  }, [kind]);

  useEffect(() => {
    view.current?.dispatch({ effects: attributes.current.reconfigure(contentAttributes()) });
  }, [label, describedBy, invalid, notes.length]);

  return (
    <>
      <div class="code-editor" id={id} ref={host} tabIndex={-1} />
      {offers ? (
        <>
          <VariableChoices
            listId={listId}
            names={names}
            active={active}
            announceActive
            onChoose={(chosenName) => view.current && choose(view.current, chosenName)}
          />
          <VariableNotes id={notesId} notes={notes} />
        </>
      ) : null}
    </>
  );
}
