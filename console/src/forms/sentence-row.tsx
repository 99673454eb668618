// A rule's action as one sentence, as its source is: "Redirect to [URL] [destination]", "Replace
// [from] with [to]", "Delay by [250] ms". One component draws every type's sentence from a list of
// words and fields of the pair (or of a script); each field keeps its JSON Pointer and its label (for
// screen readers, as the words around it are for the eye), so the service's errors and the lint's
// findings still land beside the control they name. The data is the very object the API takes.
import type { ComponentChildren } from 'preact';
import { FieldErrorText } from './field-error-text.js';
import { fieldId, useFieldErrors } from './field-errors.js';
import { FieldFindings, useFieldFindings } from './field-findings.js';
import { fieldHint, fieldLabel, valueLabel } from './labels.js';
import { choices, type JsonSchema } from './schema.js';
import { DocText } from './text.js';
import { VariableText } from './variable-text.js';

/** A field of the object in the sentence: `short` for a number, `grow` to take the line's rest. */
export interface Slot {
  field: string;
  size?: 'short' | 'grow';
}
/** Words, or a field. */
export type Part = string | Slot;

const slot = (field: string, size?: Slot['size']): Slot => (size ? { field, size } : { field });

/**
 * Each pair's action, by its schema's title (the OpenAPI document's `RedirectPair`…), and a script's
 * (an item of a Script pair's `scripts`). Headers and QueryParam changes are sentences a change
 * (modification-rows.tsx), drawn with the same words-and-cells look.
 */
const SENTENCES: Record<string, Part[]> = {
  RedirectPair: ['Redirect to', slot('destinationType'), slot('destination', 'grow')],
  CancelPair: ['Cancel the request (nothing more to set).'],
  ReplacePair: ['Replace', slot('from', 'grow'), 'with', slot('to', 'grow')],
  UserAgentPair: [
    'Send the user agent',
    slot('userAgent', 'grow'),
    'picked for',
    slot('envType'),
    slot('env'),
  ],
  DelayPair: ['Delay by', slot('delay', 'short'), 'ms'],
  ResponsePair: [
    'Respond with status',
    slot('statusCode', 'short'),
    slot('statusText'),
    'and a',
    slot('type'),
    'body',
  ],
  RequestPair: ['Send a', slot('type'), 'request body'],
  Script: ['Insert', slot('codeType'), 'from', slot('type'), slot('loadTime')],
};

/** Hints in people's words for a sentence, where its fields' descriptions would only repeat it. */
const SENTENCE_HINTS: Record<string, string> = {
  DelayPair: fieldHint('/pairs/0/delay') ?? '',
  ReplacePair:
    'Text replaces its first occurrence in the URL; a pattern (`/from/g`) each match, `$1` in the ' +
    'replacement standing for its first group. The replacement may be empty.',
  ResponsePair: 'With no status code, the response is 200.',
};

const SCRIPT = /\/scripts\/\d+$/;
const PAIR = /^\/pairs\/\d+$/;

/** The sentence of the object at `pointer` (a pair, or a script of one), if it has one. */
export function sentenceOf(pointer: string, schema: JsonSchema): { key: string; parts: Part[] } | undefined {
  const key = SCRIPT.test(pointer) ? 'Script' : PAIR.test(pointer) ? (schema.title ?? '') : '';
  const parts = SENTENCES[key];
  if (!parts) return undefined;
  // Only the fields the schema has: a field the service drops leaves the sentence, not a blank box.
  const known = parts.filter((part) => typeof part === 'string' || schema.properties?.[part.field]);
  return { key, parts: known };
}

/** The fields a sentence draws (the form draws the object's other fields as before). */
export function sentenceFields(parts: Part[]): Set<string> {
  return new Set(parts.flatMap((part) => (typeof part === 'string' ? [] : [part.field])));
}

type Values = Record<string, unknown>;

/** A row of words and controls; the change rows of Headers and QueryParam are drawn in it too. */
export function SentenceLine({
  label,
  children,
  class: extra,
}: {
  label: string;
  children: ComponentChildren;
  class?: string;
}) {
  return (
    // biome-ignore lint/a11y/useSemanticElements: one line of a form, not a section of it: a fieldset's legend would stand above the line it names.
    <div class={extra ? `sentence-row ${extra}` : 'sentence-row'} role="group" aria-label={label}>
      {children}
    </div>
  );
}

/** A word of a sentence, between its controls. */
export function Word({ children }: { children: ComponentChildren }) {
  return <span class="word">{children}</span>;
}

export function SentenceRow({
  sentence,
  pointer,
  schema,
  value,
  onChange,
}: {
  sentence: { key: string; parts: Part[] };
  pointer: string;
  schema: JsonSchema;
  value: Values;
  onChange: (value: Values) => void;
}) {
  const hint = SENTENCE_HINTS[sentence.key];
  const hintId = `${fieldId(pointer)}-action-hint`;
  const required = new Set(schema.required ?? []);
  const slots = sentence.parts.filter((part): part is Slot => typeof part !== 'string');
  const set = (name: string) => (next: unknown) => {
    const copy = { ...value };
    if (next === undefined) delete copy[name];
    else copy[name] = next;
    onChange(copy);
  };
  return (
    <div class="sentence">
      <SentenceLine label={sentence.key === 'Script' ? 'What to insert' : 'Action'}>
        {sentence.parts.map((part, index) =>
          typeof part === 'string' ? (
            <Word key={index}>{part}</Word>
          ) : (
            <SlotCell
              key={part.field}
              slot={part}
              pointer={`${pointer}/${part.field}`}
              schema={schema.properties?.[part.field] ?? {}}
              required={required.has(part.field)}
              value={value[part.field]}
              hintId={hint ? hintId : undefined}
              onChange={set(part.field)}
            />
          ),
        )}
      </SentenceLine>
      {hint ? (
        <small class="hint" id={hintId}>
          <DocText text={hint} />
        </small>
      ) : null}
      {slots.map((part) => (
        <FieldFindings key={part.field} pointer={`${pointer}/${part.field}`} />
      ))}
    </div>
  );
}

/** One field of the sentence: a choice, a number or a text box, labelled for screen readers. */
function SlotCell({
  slot: { field, size },
  pointer,
  schema,
  required,
  value,
  hintId,
  onChange,
}: {
  slot: Slot;
  pointer: string;
  schema: JsonSchema;
  required: boolean;
  value: unknown;
  hintId: string | undefined;
  onChange: (value: unknown) => void;
}) {
  const errors = useFieldErrors(pointer);
  const findings = useFieldFindings(pointer);
  const id = fieldId(pointer);
  const label = fieldLabel(field, pointer);
  const describedBy =
    [hintId ?? '', errors.length ? `${id}-error` : '', findings.length ? `${id}-findings` : '']
      .filter(Boolean)
      .join(' ') || undefined;
  const attributes = {
    id,
    name: pointer,
    'aria-invalid': errors.length ? ('true' as const) : undefined,
    'aria-describedby': describedBy,
  };
  const options = choices(schema);
  const numeric = schema.type === 'integer' || schema.type === 'number';
  const example = schema.examples?.[0];
  let control: ComponentChildren;
  if (options) {
    control = (
      <select
        {...attributes}
        value={value === undefined ? '' : String(value)}
        onChange={(event) => {
          const chosen = event.currentTarget.value;
          onChange(chosen === '' ? undefined : chosen);
        }}
      >
        {required ? null : <option value="">{`(no ${label.toLowerCase()})`}</option>}
        {options.map((option) => (
          <option key={option} value={option}>
            {valueLabel(option)}
          </option>
        ))}
      </select>
    );
  } else {
    control = (
      <VariableText
        {...attributes}
        type={numeric ? 'number' : 'text'}
        spellcheck={false}
        autocomplete="off"
        placeholder={
          typeof example === 'string' || typeof example === 'number' ? `e.g. ${example}` : undefined
        }
        value={value === undefined || value === null ? '' : String(value)}
        onInput={(event) => {
          const text = event.currentTarget.value;
          // As in the form's other text fields: an emptied optional field is left out; a number that
          // does not parse goes as typed, so the service's error says what is wrong with it, here.
          if (text === '' && !required) onChange(undefined);
          else if (numeric && text.trim() !== '' && Number.isFinite(Number(text))) onChange(Number(text));
          else onChange(text);
        }}
      />
    );
  }
  return (
    <div class={`cell${size ? ` ${size}` : ''}${errors.length ? ' invalid' : ''}`}>
      <label for={id} class="visually-hidden">
        {label}
        {required ? '' : ' (optional)'}
      </label>
      {control}
      <FieldErrorText id={id} messages={errors} />
    </div>
  );
}
