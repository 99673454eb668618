// A pair's source as one sentence, "If [URL] [contains] [value]", as Requestly writes it, with its
// filters beneath; a filter's conditions as chips with plain names (Page URL, Request method,
// Resource type, Page domains, Request body), each added or removed alone. The controls edit the
// very object the API takes and keep their JSON Pointers, so the service's errors and the lint's
// findings land beside the control they name.
import type { ComponentChildren } from 'preact';
import { useRef } from 'preact/hooks';
import { FieldErrorText } from './field-error-text.js';
import { fieldId, useFieldErrors } from './field-errors.js';
import { FieldFindings, useFieldFindings } from './field-findings.js';
import { fieldHint, fieldLabel, inSentence, valueLabel } from './labels.js';
import { Cell } from './modification-rows.js';
import { regexTokens } from './regex-tokens.js';
import { choices, emptyValue, type JsonSchema } from './schema.js';
import { type FieldProps, SchemaField } from './schema-field.js';
import { DocText } from './text.js';
import { VariableText } from './variable-text.js';

type Values = Record<string, unknown>;

const asObject = (value: unknown): Values =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Values) : {};

/** The pair's source, or a filter's page URL: a key (the source alone), an operator, a value. */
export function isCondition(props: FieldProps): boolean {
  const names = Object.keys(props.schema.properties ?? {});
  return (
    props.schema.type === 'object' &&
    names.includes('operator') &&
    names.includes('value') &&
    (props.name === 'source' || /\/filters\/\d+\/URL$/.test(props.pointer))
  );
}

/** A filter of a source: its conditions as chips. */
export function isFilter(props: FieldProps): boolean {
  return props.schema.type === 'object' && /\/source\/filters\/\d+$/.test(props.pointer);
}

function Choice({
  pointer,
  label,
  schema,
  value,
  onChange,
}: {
  pointer: string;
  label: string;
  schema: JsonSchema;
  value: unknown;
  onChange: (value: string) => void;
}) {
  return (
    <Cell pointer={pointer} label={label}>
      {(attributes) => (
        <select
          {...attributes}
          value={String(value ?? '')}
          onChange={(event) => onChange(event.currentTarget.value)}
        >
          {(choices(schema) ?? []).map((option) => (
            <option key={option} value={option}>
              {valueLabel(option)}
            </option>
          ))}
        </select>
      )}
    </Cell>
  );
}

/** "If [URL] [contains] [value]", or "[contains] [value]" for a page URL. */
export function ConditionField(props: FieldProps) {
  const id = fieldId(props.pointer);
  const errors = useFieldErrors(props.pointer);
  const value = asObject(props.value);
  const properties = props.schema.properties ?? {};
  const set = (name: string) => (next: unknown) => {
    const copy = { ...value };
    if (next === undefined) delete copy[name];
    else copy[name] = next;
    props.onChange(copy);
  };
  const label = props.label ?? fieldLabel(props.name, props.pointer);
  const isSource = props.name === 'source';
  const valueId = fieldId(`${props.pointer}/value`);
  const valueHint = fieldHint(`${props.pointer}/value`) ?? properties.value?.description;
  return (
    <fieldset class={errors.length ? 'group condition invalid' : 'group condition'} id={id}>
      <legend>{label}</legend>
      <div class="condition-row">
        {isSource ? (
          <span class="if" aria-hidden="true">
            If
          </span>
        ) : null}
        {properties.key ? (
          <Choice
            pointer={`${props.pointer}/key`}
            label="Key"
            schema={properties.key}
            value={value.key}
            onChange={set('key')}
          />
        ) : null}
        {properties.operator ? (
          <Choice
            pointer={`${props.pointer}/operator`}
            label="Operator"
            schema={properties.operator}
            value={value.operator}
            onChange={set('operator')}
          />
        ) : null}
        <ValueCell
          pointer={`${props.pointer}/value`}
          schema={properties.value ?? {}}
          value={value.value}
          regex={value.operator === 'Matches'}
          onChange={set('value')}
        />
      </div>
      <FieldErrorText id={id} messages={errors} />
      <FieldFindings pointer={props.pointer} />
      {valueHint ? (
        <small class="hint" id={`${valueId}-hint`}>
          <DocText text={valueHint} />
        </small>
      ) : null}
      <FieldFindings pointer={`${props.pointer}/value`} />
      {isSource && properties.filters ? (
        <SchemaField
          name="filters"
          schema={properties.filters}
          value={value.filters}
          pointer={`${props.pointer}/filters`}
          required={false}
          onChange={set('filters')}
        />
      ) : null}
    </fieldset>
  );
}

/**
 * The condition's value: described by its hint (under the row), its error and the lint's findings.
 * A `Matches` pattern is coloured as a regular expression: the box's own text is see-through over a
 * copy cut into coloured pieces (forms/regex-tokens.ts), so it stays the plain box it was (label,
 * completion, selection, undo) and shows the pattern exactly as typed.
 */
function ValueCell({
  pointer,
  schema,
  value,
  regex,
  onChange,
}: {
  pointer: string;
  schema: JsonSchema;
  value: unknown;
  regex: boolean;
  onChange: (value: string) => void;
}) {
  const overlay = useRef<HTMLDivElement>(null);
  const text = typeof value === 'string' ? value : '';
  // The copy scrolls with the box when the pattern is longer than the box is wide.
  const follow = (event: Event) => {
    if (overlay.current) overlay.current.scrollLeft = (event.currentTarget as HTMLInputElement).scrollLeft;
  };
  const errors = useFieldErrors(pointer);
  const findings = useFieldFindings(pointer);
  const id = fieldId(pointer);
  const example = schema.examples?.[0];
  const hint = fieldHint(pointer) ?? schema.description;
  const describedBy = [
    hint ? `${id}-hint` : '',
    errors.length ? `${id}-error` : '',
    findings.length ? `${id}-findings` : '',
  ]
    .filter(Boolean)
    .join(' ');
  return (
    <div class={`cell${regex ? ' regex-cell' : ''}${errors.length ? ' invalid' : ''}`}>
      <label for={id} class="visually-hidden">
        Value
      </label>
      {regex ? (
        <div class="regex-overlay" aria-hidden="true" ref={overlay}>
          {regexTokens(text).map((token, index) => (
            <span key={index} class={`re-${token.kind}`}>
              {token.text}
            </span>
          ))}
        </div>
      ) : null}
      <VariableText
        id={id}
        name={pointer}
        class={regex ? 'condition-value regex' : 'condition-value'}
        type="text"
        spellcheck={false}
        autocomplete="off"
        aria-invalid={errors.length ? 'true' : undefined}
        aria-describedby={describedBy || undefined}
        placeholder={typeof example === 'string' ? `e.g. ${example}` : undefined}
        value={text}
        onInput={(event) => {
          onChange(event.currentTarget.value);
          follow(event);
        }}
        onScroll={follow}
      />
      <FieldErrorText id={id} messages={errors} />
    </div>
  );
}

/** One chip: a condition of the filter, with its remove button. */
function Chip({
  children,
  onRemove,
  name,
}: {
  children: ComponentChildren;
  onRemove: () => void;
  name: string;
}) {
  return (
    <div class="chip">
      {children}
      <button type="button" class="secondary small chip-remove" onClick={onRemove}>
        Remove {inSentence(name)}
      </button>
    </div>
  );
}

/** A filter: the conditions it has, as chips, and a button to add each it has not. */
export function FilterField(props: FieldProps) {
  const id = fieldId(props.pointer);
  const errors = useFieldErrors(props.pointer);
  const value = asObject(props.value);
  const properties = Object.entries(props.schema.properties ?? {});
  const label = props.label ?? fieldLabel(props.name, props.pointer);
  const set = (name: string) => (next: unknown) => {
    const copy = { ...value };
    if (next === undefined) delete copy[name];
    else copy[name] = next;
    props.onChange(copy);
  };
  const present = properties.filter(([name]) => value[name] !== undefined);
  const absent = properties.filter(([name]) => value[name] === undefined);
  return (
    <fieldset class={errors.length ? 'group filter invalid' : 'group filter'} id={id}>
      <legend>{label}</legend>
      {props.schema.description ? (
        <small class="hint" id={`${id}-hint`}>
          <DocText text={props.schema.description} />
        </small>
      ) : null}
      <FieldErrorText id={id} messages={errors} />
      <FieldFindings pointer={props.pointer} />
      {present.length ? (
        <div class="chips">
          {present.map(([name, schema]) => {
            const pointer = `${props.pointer}/${name}`;
            return (
              <Chip key={name} name={fieldLabel(name, pointer)} onRemove={() => set(name)(undefined)}>
                <SchemaField
                  name={name}
                  schema={schema}
                  value={value[name]}
                  pointer={pointer}
                  required
                  onChange={(next) => set(name)(next ?? emptyValue(schema))}
                />
              </Chip>
            );
          })}
        </div>
      ) : (
        <p class="hint">No condition yet: add one below.</p>
      )}
      {absent.length ? (
        <div class="chip-adds">
          {absent.map(([name, schema]) => (
            <button
              key={name}
              type="button"
              class="secondary small chip-add"
              onClick={() => set(name)(emptyValue(schema))}
            >
              <span aria-hidden="true">+ </span>Add {inSentence(fieldLabel(name, `${props.pointer}/${name}`))}
            </button>
          ))}
        </div>
      ) : null}
    </fieldset>
  );
}
