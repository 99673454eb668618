// The rule being edited as JSON, in CodeMirror: highlighted, checked as it is typed (text that does
// not parse is kept as typed, marked where the parser stopped, and changes nothing until it parses),
// and the API's problems (a failed save or test) marked at the lines their pointers name, and listed
// under the editor in words, for whoever does not see the marks. The same value as the form.
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { json, jsonParseLinter } from '@codemirror/lang-json';
import { bracketMatching, syntaxHighlighting } from '@codemirror/language';
import { type Diagnostic, forceLinting, linter, lintGutter } from '@codemirror/lint';
import { EditorState, StateEffect } from '@codemirror/state';
import { EditorView, keymap, lineNumbers } from '@codemirror/view';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ErrorDetail } from '../api.js';
import { CODE_HIGHLIGHT, CODE_THEME } from '../ui/code-theme.js';
import { pointerRange } from './json-pointer-range.js';

interface JsonViewProps {
  value: unknown;
  onChange: (value: unknown) => void;
  /** The service's problems with the rule, pointing into it. */
  problems: readonly ErrorDetail[];
  /** Shown to read, for someone who may not change the rule: the text can be selected, not edited. */
  readOnly?: boolean;
  /** What is edited, for another object than a rule (a test suite): its label, ids and hint. */
  what?: { label: string; id: string; hint: string; readOnlyHint: string; shape: string };
}

const RULE = {
  label: 'The rule as JSON',
  id: 'rule-json',
  hint: 'The body sent to the API on save, as the form shows it. Problems are marked at their lines.',
  readOnlyHint: 'The rule as the API holds it.',
  shape: 'A rule is a JSON object.',
};

/** A problem with the line it is on (0 when its pointer is not in the text). */
interface Placed {
  detail: ErrorDetail;
  line: number;
  from: number;
  to: number;
}

function place(state: EditorState, problems: readonly ErrorDetail[]): Placed[] {
  return problems.map((detail) => {
    const range = pointerRange(state, detail.path);
    return range
      ? { detail, line: state.doc.lineAt(range.from).number, ...range }
      : { detail, line: 0, from: 0, to: 0 };
  });
}

// The editor lives in a shadow root: CodeMirror writes its styles into a <style> element in a
// document, which the console's Content-Security-Policy (style-src 'self') refuses, and into adopted
// style sheets in a shadow root, which it does not govern (ui/code-theme.ts has its looks).

/** The service's problems changed: the linter runs again though the text did not. */
const problemsChanged = StateEffect.define<null>();

export function JsonView({ value, onChange, problems, readOnly = false, what = RULE }: JsonViewProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  // Read by the editor's callbacks, which are made once.
  const current = useRef({ onChange, problems });
  current.current = { onChange, problems };
  const [parseProblem, setParseProblem] = useState<string | null>(null);
  const [placed, setPlaced] = useState<Placed[]>([]);

  useEffect(() => {
    if (!host.current) return;
    const parseLinter = jsonParseLinter();
    const root = host.current.shadowRoot ?? host.current.attachShadow({ mode: 'open' });
    const editor = new EditorView({
      root,
      parent: root,
      state: EditorState.create({
        doc: JSON.stringify(value, null, 2),
        extensions: [
          lineNumbers(),
          history(),
          bracketMatching(),
          json(),
          syntaxHighlighting(CODE_HIGHLIGHT),
          CODE_THEME,
          lintGutter(),
          linter(
            (v): Diagnostic[] => {
              const syntax = parseLinter(v);
              if (syntax.length) return syntax;
              return place(v.state, current.current.problems)
                .filter((p) => p.line > 0)
                .map((p) => ({
                  from: p.from,
                  to: p.to,
                  severity: 'error',
                  message: `${p.detail.path}: ${p.detail.message}`,
                }));
            },
            {
              delay: 250,
              needsRefresh: (update) =>
                update.transactions.some((tr) => tr.effects.some((effect) => effect.is(problemsChanged))),
            },
          ),
          keymap.of([...defaultKeymap, ...historyKeymap]),
          EditorView.lineWrapping,
          EditorState.readOnly.of(readOnly),
          EditorView.contentAttributes.of({
            'aria-label': what.label,
            'aria-describedby': `${what.id}-hint ${what.id}-problems`,
            spellcheck: 'false',
            ...(readOnly ? { 'aria-readonly': 'true' } : {}),
          }),
          EditorView.updateListener.of((update) => {
            if (!update.docChanged) return;
            const text = update.state.doc.toString();
            try {
              const parsed: unknown = JSON.parse(text);
              if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error(what.shape);
              setParseProblem(null);
              current.current.onChange(parsed);
            } catch (error) {
              setParseProblem(error instanceof Error ? error.message : String(error));
            }
          }),
        ],
      }),
    });
    view.current = editor;
    return () => {
      editor.destroy();
      view.current = null;
    };
    // The text is the editor's from here on: a new value from outside comes with a new key.
  }, []);

  // New problems from the service: marked now, not at the next keystroke.
  useEffect(() => {
    const editor = view.current;
    if (!editor) return;
    setPlaced(place(editor.state, problems));
    editor.dispatch({ effects: problemsChanged.of(null) });
    forceLinting(editor);
  }, [problems]);

  return (
    <div class={parseProblem || problems.length ? 'field invalid' : 'field'}>
      <span class="label" id={`${what.id}-label`}>
        {what.label}
      </span>
      <div class="json-editor" ref={host} />
      <small class="hint" id={`${what.id}-hint`}>
        {readOnly ? what.readOnlyHint : what.hint}
      </small>
      <div id={`${what.id}-problems`}>
        {parseProblem ? <p class="field-error">Not valid JSON yet: {parseProblem}</p> : null}
        {placed.length ? (
          <ul class="field-error json-problems">
            {placed.map(({ detail, line }) => (
              <li key={detail.path + detail.message}>
                {line ? `Line ${line}: ` : ''}
                <code>{detail.path || '/'}</code> {detail.message}
              </li>
            ))}
          </ul>
        ) : null}
      </div>
    </div>
  );
}
