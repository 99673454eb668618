// A Response or Request body and a script's code, in a code editor coloured in its language: code
// (a function, a script) as JavaScript or CSS; a static body as JSON, HTML or plain text, read from
// the body itself (the rule model keeps no content type) and changeable here, for the colours only.
// A JSON body can be pretty-printed. A script that is a URL stays a one-line text field.
import { useState } from 'preact/hooks';
import { type CodeKind, guessBodyKind, KIND_LABELS, prettyJson } from './body-kind.js';
import { CodeField } from './code-field.js';
import { FieldErrorText } from './field-error-text.js';
import { fieldId, useFieldErrors } from './field-errors.js';
import { FieldFindings, useFieldFindings } from './field-findings.js';
import { fieldHint, fieldLabel } from './labels.js';
import type { FieldProps } from './schema-field.js';
import { DocText } from './text.js';

const BODY = /^\/pairs\/\d+\/value$/;
const SCRIPT = /\/scripts\/\d+\/value$/;

/** Whether the field at `pointer` is a body or code, given the object it is in. */
export function isCode(pointer: string, siblings: Record<string, unknown> | undefined): boolean {
  if (BODY.test(pointer)) return true;
  return SCRIPT.test(pointer) && siblings?.type !== 'url';
}

/** The language of the code: a script's own, a function's, or a static body's by the body. */
function codeKind(pointer: string, siblings: Record<string, unknown> | undefined, text: string): CodeKind {
  if (SCRIPT.test(pointer)) return siblings?.codeType === 'css' ? 'css' : 'javascript';
  return siblings?.type === 'code' ? 'javascript' : guessBodyKind(text);
}

const STATIC_KINDS: CodeKind[] = ['json', 'html', 'text'];

export function BodyField(props: FieldProps) {
  const id = fieldId(props.pointer);
  const errors = useFieldErrors(props.pointer);
  const findings = useFieldFindings(props.pointer);
  const text = typeof props.value === 'string' ? props.value : '';
  const guessed = codeKind(props.pointer, props.siblings, text);
  const isStatic = BODY.test(props.pointer) && props.siblings?.type !== 'code';
  // Chosen by the person for a static body, or read from the body while they have not chosen.
  const [chosen, setChosen] = useState<CodeKind | null>(null);
  const kind = isStatic ? (chosen ?? guessed) : guessed;
  const pretty = kind === 'json' ? prettyJson(text) : null;
  const label = props.label ?? (SCRIPT.test(props.pointer) ? 'Code' : fieldLabel(props.name, props.pointer));
  const hint = fieldHint(props.pointer) ?? props.schema.description;
  const describedBy =
    [hint ? `${id}-hint` : '', errors.length ? `${id}-error` : '', findings.length ? `${id}-findings` : '']
      .filter(Boolean)
      .join(' ') || undefined;
  return (
    <div class={errors.length ? 'field code invalid' : 'field code'}>
      <div class="code-head">
        <span class="label" id={`${id}-label`}>
          {label}
          <span class="code-kind"> ({KIND_LABELS[kind]})</span>
        </span>
        {isStatic ? (
          <span class="code-tools">
            <label for={`${id}-kind`}>Colour as</label>
            <select
              id={`${id}-kind`}
              value={chosen ?? 'auto'}
              onChange={(event) => {
                const picked = event.currentTarget.value;
                setChosen(picked === 'auto' ? null : (picked as CodeKind));
              }}
            >
              <option value="auto">Read from the body ({KIND_LABELS[guessed]})</option>
              {STATIC_KINDS.map((option) => (
                <option key={option} value={option}>
                  {KIND_LABELS[option]}
                </option>
              ))}
            </select>
            {kind === 'json' ? (
              <button
                type="button"
                class="secondary small"
                disabled={pretty === null || pretty === text}
                title={pretty === null ? 'The body is not valid JSON yet' : undefined}
                onClick={() => pretty !== null && props.onChange(pretty)}
              >
                Pretty-print
              </button>
            ) : null}
          </span>
        ) : null}
      </div>
      <CodeField
        id={id}
        name={props.pointer}
        label={label}
        value={text}
        kind={kind}
        invalid={errors.length > 0}
        describedBy={describedBy}
        onChange={(next) => props.onChange(next)}
      />
      {hint ? (
        <small class="hint" id={`${id}-hint`}>
          <DocText text={hint} />
        </small>
      ) : null}
      <FieldErrorText id={id} messages={errors} />
      <FieldFindings pointer={props.pointer} />
    </div>
  );
}
