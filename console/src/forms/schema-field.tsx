// One field of a pair form, drawn from its schema: a choice is a select (or checkboxes, for a list of
// choices), a string a text box, a list of objects a fieldset per item with add and remove, an
// optional object an "Add …" button until it is wanted. Every control is labelled, its description is
// its hint, and the API's error for its pointer is shown under it.
import type { ComponentChildren } from 'preact';
import { BodyField, isCode } from './body-field.js';
import { FieldErrorText } from './field-error-text.js';
import { fieldId, useFieldErrors } from './field-errors.js';
import { FieldFindings, useFieldFindings } from './field-findings.js';
import { fieldHint, fieldLabel, ITEM_NAMES, inSentence, labelFor, valueLabel } from './labels.js';
import { HeaderRows, QueryParamRows } from './modification-rows.js';
import { choices, emptyValue, type JsonSchema } from './schema.js';
import { SentenceRow, sentenceFields, sentenceOf } from './sentence-row.js';
import { ConditionField, FilterField, isCondition, isFilter } from './source-field.js';
import { DocText } from './text.js';
import { VariableText } from './variable-text.js';

export interface FieldProps {
  name: string;
  label?: string;
  schema: JsonSchema;
  value: unknown;
  /** Where the value is in the rule body: the pointer the API's `details` use. */
  pointer: string;
  required: boolean;
  /** `undefined` removes an optional property. */
  onChange: (value: unknown) => void;
  /** The object the field is a property of: a body's language follows its pair's `type`. */
  siblings?: Record<string, unknown>;
}

/** Ids of pairs and modifications are kept as they came but not edited: the service makes them. */
const HIDDEN = /\/id$/;

export function SchemaField(props: FieldProps) {
  if (HIDDEN.test(props.pointer)) return null;
  const { schema } = props;
  // Header and query-parameter changes: one row a change (their schemas say which is which).
  if (props.name === 'modifications' && schema.items?.properties?.Request) return <HeaderRows {...props} />;
  if (props.name === 'modifications' && schema.items?.properties?.param) return <QueryParamRows {...props} />;
  // The source as a sentence ("If URL contains …"), a filter's conditions as chips, bodies and code
  // in a code editor.
  if (isCondition(props)) return <ConditionField {...props} />;
  if (isFilter(props)) return <FilterField {...props} />;
  if (schema.type === 'string' && isCode(props.pointer, props.siblings)) return <BodyField {...props} />;
  if (choices(schema)) return <ChoiceField {...props} />;
  if (schema.type === 'object') return <ObjectField {...props} />;
  if (schema.type === 'array') {
    return schema.items && choices(schema.items) ? <ChoiceListField {...props} /> : <ListField {...props} />;
  }
  if (schema.type === 'boolean') return <BooleanField {...props} />;
  return <TextField {...props} />;
}

function Hint({ id, schema, pointer }: { id: string; schema: JsonSchema; pointer: string }) {
  const text = fieldHint(pointer) ?? schema.description;
  return text ? (
    <small class="hint" id={`${id}-hint`}>
      <DocText text={text} />
    </small>
  ) : null;
}

/** The hint's, the error's and the lint findings' ids, for aria-describedby. */
function describedBy(id: string, schema: JsonSchema, errors: string[], findings = false): string | undefined {
  const ids = [
    schema.description ? `${id}-hint` : '',
    errors.length ? `${id}-error` : '',
    findings ? `${id}-findings` : '',
  ];
  return ids.filter(Boolean).join(' ') || undefined;
}

function Control({ props, children }: { props: FieldProps; children: ComponentChildren }) {
  const id = fieldId(props.pointer);
  const errors = useFieldErrors(props.pointer);
  return (
    <div class={errors.length ? 'field invalid' : 'field'}>
      <label for={id}>
        {props.label ?? fieldLabel(props.name, props.pointer)}
        {props.required ? null : <span class="optional"> (optional)</span>}
      </label>
      {children}
      <Hint id={id} schema={props.schema} pointer={props.pointer} />
      <FieldErrorText id={id} messages={errors} />
      <FieldFindings pointer={props.pointer} />
    </div>
  );
}

function inputProps(props: FieldProps, errors: string[], findings: number) {
  const id = fieldId(props.pointer);
  return {
    id,
    name: props.pointer,
    'aria-invalid': errors.length ? ('true' as const) : undefined,
    'aria-describedby': describedBy(id, props.schema, errors, findings > 0),
  };
}

function TextField(props: FieldProps) {
  const errors = useFieldErrors(props.pointer);
  const findings = useFieldFindings(props.pointer);
  const { schema, value, required, onChange } = props;
  const numeric = schema.type === 'integer' || schema.type === 'number';
  const example = schema.examples?.[0];
  const common = {
    ...inputProps(props, errors, findings.length),
    value: value === undefined || value === null ? '' : String(value),
    placeholder: typeof example === 'string' || typeof example === 'number' ? `e.g. ${example}` : undefined,
    onInput: (event: Event) => {
      const text = (event.currentTarget as HTMLInputElement).value;
      // An emptied optional field is left out; a number that does not parse goes as typed, so
      // the service's error says what is wrong with it, at this field.
      if (text === '' && !required) onChange(undefined);
      else if (numeric && text.trim() !== '' && Number.isFinite(Number(text))) onChange(Number(text));
      else onChange(text);
    },
  };
  return (
    <Control props={props}>
      <VariableText type={numeric ? 'number' : 'text'} spellcheck={false} autocomplete="off" {...common} />
    </Control>
  );
}

function ChoiceField(props: FieldProps) {
  const errors = useFieldErrors(props.pointer);
  const findings = useFieldFindings(props.pointer);
  const options = choices(props.schema) ?? [];
  return (
    <Control props={props}>
      <select
        {...inputProps(props, errors, findings.length)}
        value={props.value === undefined ? '' : String(props.value)}
        onChange={(event) => {
          const chosen = event.currentTarget.value;
          props.onChange(chosen === '' ? undefined : chosen);
        }}
      >
        {props.required ? null : <option value="">(not set)</option>}
        {options.map((option) => (
          <option key={option} value={option}>
            {valueLabel(option)}
          </option>
        ))}
      </select>
    </Control>
  );
}

function BooleanField(props: FieldProps) {
  const errors = useFieldErrors(props.pointer);
  const findings = useFieldFindings(props.pointer);
  const id = fieldId(props.pointer);
  return (
    <div class={errors.length ? 'field checkbox invalid' : 'field checkbox'}>
      <input
        type="checkbox"
        {...inputProps(props, errors, findings.length)}
        checked={props.value === true}
        onChange={(event) =>
          props.onChange(event.currentTarget.checked ? true : props.required ? false : undefined)
        }
      />
      <label for={id}>{props.label ?? fieldLabel(props.name, props.pointer)}</label>
      <Hint id={id} schema={props.schema} pointer={props.pointer} />
      <FieldErrorText id={id} messages={errors} />
      <FieldFindings pointer={props.pointer} />
    </div>
  );
}

function Group({ props, children }: { props: FieldProps; children: ComponentChildren }) {
  const id = fieldId(props.pointer);
  const errors = useFieldErrors(props.pointer);
  const findings = useFieldFindings(props.pointer);
  return (
    <fieldset
      class={errors.length ? 'group invalid' : 'group'}
      id={id}
      aria-describedby={describedBy(id, props.schema, errors, findings.length > 0)}
    >
      <legend>{props.label ?? fieldLabel(props.name, props.pointer)}</legend>
      <Hint id={id} schema={props.schema} pointer={props.pointer} />
      <FieldErrorText id={id} messages={errors} />
      <FieldFindings pointer={props.pointer} />
      {children}
    </fieldset>
  );
}

function ChoiceListField(props: FieldProps) {
  const selected = Array.isArray(props.value) ? (props.value as unknown[]) : [];
  const options = choices(props.schema.items ?? {}) ?? [];
  return (
    <Group props={props}>
      <div class="checkbox-row">
        {options.map((option) => {
          const id = `${fieldId(props.pointer)}-${option}`;
          return (
            <span class="checkbox" key={option}>
              <input
                type="checkbox"
                id={id}
                checked={selected.includes(option)}
                onChange={(event) => {
                  const next = event.currentTarget.checked
                    ? [...selected, option]
                    : selected.filter((item) => item !== option);
                  props.onChange(next.length || props.required ? next : undefined);
                }}
              />
              <label for={id}>{valueLabel(option)}</label>
            </span>
          );
        })}
      </div>
    </Group>
  );
}

function ListField(props: FieldProps) {
  const items = Array.isArray(props.value) ? (props.value as unknown[]) : [];
  // The list says what its items are; each item saying it again is noise.
  const { description: _said, ...itemSchema } = props.schema.items ?? {};
  const itemName = ITEM_NAMES[props.name] ?? labelFor(props.name);
  const canAdd = props.schema.maxItems === undefined || items.length < props.schema.maxItems;
  const replace = (next: unknown[]) => props.onChange(next.length || props.required ? next : undefined);
  return (
    <Group props={props}>
      {items.map((item, index) => (
        <div class="list-item" key={index}>
          <SchemaField
            name={itemName}
            label={`${itemName} ${index + 1}`}
            schema={itemSchema}
            value={item}
            pointer={`${props.pointer}/${index}`}
            required
            onChange={(value) => replace(items.map((old, i) => (i === index ? value : old)))}
          />
          <button
            type="button"
            class="secondary small"
            onClick={() => replace(items.filter((_, i) => i !== index))}
          >
            Remove {inSentence(itemName)} {index + 1}
          </button>
        </div>
      ))}
      {canAdd ? (
        <button
          type="button"
          class="secondary small"
          onClick={() => replace([...items, emptyValue(itemSchema)])}
        >
          Add {inSentence(itemName)}
        </button>
      ) : null}
    </Group>
  );
}

function ObjectField(props: FieldProps) {
  const { schema } = props;
  if (props.value === undefined && !props.required) {
    return (
      <div class="field">
        <button type="button" class="secondary small" onClick={() => props.onChange(emptyValue(schema))}>
          Add {inSentence(fieldLabel(props.name, props.pointer))}
        </button>
      </div>
    );
  }
  const value = (props.value && typeof props.value === 'object' ? props.value : {}) as Record<
    string,
    unknown
  >;
  const required = new Set(schema.required ?? []);
  // A pair's action (or a script's) as one sentence, after the source; its other fields beneath.
  const sentence = sentenceOf(props.pointer, schema);
  const drawnInSentence = sentence ? sentenceFields(sentence.parts) : new Set<string>();
  const field = ([name, property]: [string, JsonSchema]) => (
    <SchemaField
      key={name}
      name={name}
      schema={property}
      value={value[name]}
      pointer={`${props.pointer}/${name}`}
      required={required.has(name)}
      siblings={value}
      onChange={(next) => {
        const copy = { ...value };
        if (next === undefined) delete copy[name];
        else copy[name] = next;
        props.onChange(copy);
      }}
    />
  );
  const properties = Object.entries(schema.properties ?? {});
  return (
    <Group props={props}>
      {properties.filter(([name]) => name === 'source').map(field)}
      {sentence ? (
        <SentenceRow
          sentence={sentence}
          pointer={props.pointer}
          schema={schema}
          value={value}
          onChange={props.onChange}
        />
      ) : null}
      {properties.filter(([name]) => name !== 'source' && !drawnInSentence.has(name)).map(field)}
      {props.required ? null : (
        <button type="button" class="secondary small" onClick={() => props.onChange(undefined)}>
          Remove {inSentence(fieldLabel(props.name, props.pointer))}
        </button>
      )}
    </Group>
  );
}
