// Header and query-parameter changes as rows (one change a row: where, what, name, value), instead of
// a fieldset per set per list per change: a Headers rule with three changes fits in a few lines. The
// rows edit the very arrays the API takes, and every control keeps its JSON Pointer, so the service's
// errors and the lint's findings still land beside the control they name.

import { FieldErrorText } from './field-error-text.js';
import { fieldId, useFieldErrors } from './field-errors.js';
import { FieldFindings } from './field-findings.js';
import { SentenceLine, Word } from './sentence-row.js';
import { DocText } from './text.js';
import { VariableText } from './variable-text.js';

type Side = 'Request' | 'Response';
interface HeaderChange {
  header?: string;
  type?: string;
  value?: string;
  [kept: string]: unknown;
}
type HeaderSet = Partial<Record<Side, HeaderChange[]>> & Record<string, unknown>;

interface RowsProps {
  value: unknown;
  /** The pointer of the `modifications` array. */
  pointer: string;
  onChange: (value: unknown) => void;
}

const HEADER_TYPES = ['Add', 'Modify', 'Remove'];
const QUERY_TYPES = ['Add', 'Remove', 'Remove All'];
/** Requestly's functions, evaluated per request in Headers values (see the README's matching rules). */
const FUNCTIONS_LIST = 'rq-functions';

/** One control of a row: labelled for assistive technology, its error (if any) under it. */
export function Cell({
  pointer,
  label,
  grow = false,
  children,
}: {
  pointer: string;
  label: string;
  /** Takes the rest of a sentence's line (a name, a value). */
  grow?: boolean;
  children: (attributes: Record<string, string | undefined>) => preact.ComponentChildren;
}) {
  const errors = useFieldErrors(pointer);
  const id = fieldId(pointer);
  return (
    <div class={`cell${grow ? ' grow' : ''}${errors.length ? ' invalid' : ''}`}>
      <label for={id} class="visually-hidden">
        {label}
      </label>
      {children({
        id,
        name: pointer,
        'aria-invalid': errors.length ? 'true' : undefined,
        'aria-describedby': errors.length ? `${id}-error` : undefined,
      })}
      <FieldErrorText id={id} messages={errors} />
    </div>
  );
}

function Select({
  options,
  value,
  onChange,
  attributes,
  labels = {},
}: {
  options: string[];
  value: string;
  onChange: (value: string) => void;
  attributes: Record<string, string | undefined>;
  /** What the person reads for a wire value, where it differs ("request" for `Request`). */
  labels?: Record<string, string>;
}) {
  return (
    <select {...attributes} value={value} onChange={(event) => onChange(event.currentTarget.value)}>
      {options.map((option) => (
        <option key={option} value={option}>
          {labels[option] ?? option}
        </option>
      ))}
    </select>
  );
}

/** Errors the service gives the list or a row as a whole ("1 to 100 changes in all"). */
function ListErrors({ pointer }: { pointer: string }) {
  const errors = useFieldErrors(pointer);
  return <FieldErrorText id={fieldId(pointer)} messages={errors} />;
}

export function HeaderRows({ value, pointer, onChange }: RowsProps) {
  const sets = (Array.isArray(value) ? value : [{}]) as HeaderSet[];
  const rows = sets.flatMap((set, s) =>
    (['Request', 'Response'] as const).flatMap((side) =>
      (Array.isArray(set[side]) ? (set[side] as HeaderChange[]) : []).map((change, k) => ({
        s,
        side,
        k,
        change,
      })),
    ),
  );
  /** The sets with one list replaced; an emptied list is left out, as the API writes it. */
  const withList = (all: HeaderSet[], s: number, side: Side, list: HeaderChange[]): HeaderSet[] =>
    all.map((set, i) => {
      if (i !== s) return set;
      const { [side]: _old, ...rest } = set;
      return list.length ? { ...rest, [side]: list } : rest;
    });
  const update = (s: number, side: Side, k: number, change: HeaderChange) => {
    const list = [...((sets[s]?.[side] as HeaderChange[]) ?? [])];
    list[k] = change;
    onChange(withList(sets, s, side, list));
  };
  const remove = (s: number, side: Side, k: number) =>
    onChange(
      withList(
        sets,
        s,
        side,
        ((sets[s]?.[side] as HeaderChange[]) ?? []).filter((_, i) => i !== k),
      ),
    );
  const move = (s: number, from: Side, k: number, to: Side) => {
    const change = ((sets[s]?.[from] as HeaderChange[] | undefined) ?? [])[k];
    if (!change) return;
    const moved = withList(
      sets,
      s,
      from,
      ((sets[s]?.[from] as HeaderChange[]) ?? []).filter((_, i) => i !== k),
    );
    onChange(withList(moved, s, to, [...((moved[s]?.[to] as HeaderChange[]) ?? []), change]));
  };
  // A new row goes after the last one: into the last set, on the last row's side.
  const add = () => {
    const base = sets.length ? sets : [{}];
    const last = base.length - 1;
    const side = rows.at(-1)?.side ?? 'Request';
    onChange(
      withList(base, last, side, [
        ...((base[last]?.[side] as HeaderChange[]) ?? []),
        { header: '', type: 'Add', value: '' },
      ]),
    );
  };
  const hintId = `${fieldId(pointer)}-hint`;
  return (
    <fieldset class="group rows" id={fieldId(pointer)} aria-describedby={hintId}>
      <legend>Header changes</legend>
      <ListErrors pointer={pointer} />
      <FieldFindings pointer={pointer} />
      {rows.length ? null : <p class="empty">No header changes yet.</p>}
      {rows.map(({ s, side, k, change }, n) => {
        const at = `${pointer}/${s}/${side}/${k}`;
        const type = change.type ?? 'Add';
        return (
          // "[Add] [request] header [name] [value]": the change's words in the order they are said.
          <SentenceLine label={`Header change ${n + 1}`} class="change-row" key={`${s}-${side}-${k}`}>
            <Cell pointer={`${at}/type`} label="Change">
              {(attributes) => (
                <Select
                  attributes={attributes}
                  options={HEADER_TYPES}
                  value={type}
                  onChange={(next) => {
                    const { value: _value, ...rest } = change;
                    update(
                      s,
                      side,
                      k,
                      next === 'Remove'
                        ? { ...rest, type: next }
                        : { ...change, type: next, value: change.value ?? '' },
                    );
                  }}
                />
              )}
            </Cell>
            <Cell pointer={`${at}/side`} label="Applies to">
              {(attributes) => (
                <Select
                  attributes={attributes}
                  options={['Request', 'Response']}
                  labels={{ Request: 'request', Response: 'response' }}
                  value={side}
                  onChange={(to) => to !== side && move(s, side, k, to as Side)}
                />
              )}
            </Cell>
            <Word>header</Word>
            <Cell pointer={`${at}/header`} label="Header" grow>
              {(attributes) => (
                <VariableText
                  {...attributes}
                  type="text"
                  spellcheck={false}
                  autocomplete="off"
                  placeholder="e.g. Access-Control-Allow-Origin"
                  value={change.header ?? ''}
                  onInput={(event) => update(s, side, k, { ...change, header: event.currentTarget.value })}
                />
              )}
            </Cell>
            {type === 'Remove' ? null : (
              <Cell pointer={`${at}/value`} label="Value" grow>
                {(attributes) => (
                  <VariableText
                    {...attributes}
                    aria-describedby={[attributes['aria-describedby'], hintId].filter(Boolean).join(' ')}
                    type="text"
                    spellcheck={false}
                    autocomplete="off"
                    list={FUNCTIONS_LIST}
                    placeholder="value"
                    value={change.value ?? ''}
                    onInput={(event) => update(s, side, k, { ...change, value: event.currentTarget.value })}
                  />
                )}
              </Cell>
            )}
            <button type="button" class="secondary small" onClick={() => remove(s, side, k)}>
              Remove<span class="visually-hidden"> header change {n + 1}</span>
            </button>
            <FieldFindings pointer={at} />
          </SentenceLine>
        );
      })}
      <datalist id={FUNCTIONS_LIST}>
        <option value="rq_request_initiator_origin()" />
        <option value="rq_rand(6)" />
      </datalist>
      <button type="button" class="secondary small" onClick={add}>
        Add a header change
      </button>
      <small class="hint" id={hintId}>
        <DocText text="A value may call `rq_request_initiator_origin()` (the request's Origin, else the page's origin, else `*`: what CORS answers need) or `rq_rand(N)` (N random digits, N at most 8); each is worked out for every request." />
      </small>
    </fieldset>
  );
}

interface QueryChange {
  param?: string;
  type?: string;
  value?: string;
  actionWhenParamExists?: string;
  [kept: string]: unknown;
}

export function QueryParamRows({ value, pointer, onChange }: RowsProps) {
  const rows = (Array.isArray(value) ? value : []) as QueryChange[];
  const update = (k: number, change: QueryChange) => onChange(rows.map((row, i) => (i === k ? change : row)));
  return (
    <fieldset class="group rows" id={fieldId(pointer)}>
      <legend>Query parameter changes</legend>
      <ListErrors pointer={pointer} />
      <FieldFindings pointer={pointer} />
      {rows.length ? null : <p class="empty">No parameter changes yet.</p>}
      {rows.map((change, k) => {
        const at = `${pointer}/${k}`;
        const type = change.type ?? 'Add';
        return (
          // "[Add] param [name] [value], if it is there [Overwrite]"; "[Remove All] params".
          <SentenceLine label={`Parameter change ${k + 1}`} class="change-row" key={k}>
            <Cell pointer={`${at}/type`} label="Change">
              {(attributes) => (
                <Select
                  attributes={attributes}
                  options={QUERY_TYPES}
                  value={type}
                  onChange={(next) => {
                    const { param, value: v, actionWhenParamExists, ...rest } = change;
                    update(k, {
                      ...rest,
                      type: next,
                      ...(next === 'Remove All' ? {} : { param: param ?? '' }),
                      ...(next === 'Add'
                        ? { value: v ?? '', ...(actionWhenParamExists ? { actionWhenParamExists } : {}) }
                        : {}),
                    });
                  }}
                />
              )}
            </Cell>
            <Word>{type === 'Remove All' ? 'params' : 'param'}</Word>
            {type === 'Remove All' ? null : (
              <Cell pointer={`${at}/param`} label="Parameter" grow>
                {(attributes) => (
                  <input
                    {...attributes}
                    type="text"
                    spellcheck={false}
                    autocomplete="off"
                    placeholder="e.g. utm_source"
                    value={change.param ?? ''}
                    onInput={(event) => update(k, { ...change, param: event.currentTarget.value })}
                  />
                )}
              </Cell>
            )}
            {type === 'Add' ? (
              <>
                <Cell pointer={`${at}/value`} label="Value" grow>
                  {(attributes) => (
                    <VariableText
                      {...attributes}
                      type="text"
                      spellcheck={false}
                      autocomplete="off"
                      placeholder="value"
                      value={change.value ?? ''}
                      onInput={(event) => update(k, { ...change, value: event.currentTarget.value })}
                    />
                  )}
                </Cell>
                <Word>if it is there</Word>
                <Cell pointer={`${at}/actionWhenParamExists`} label="If it is there">
                  {(attributes) => (
                    <Select
                      attributes={attributes}
                      options={['Overwrite', 'Ignore']}
                      labels={{ Overwrite: 'overwrite it', Ignore: 'leave it' }}
                      value={change.actionWhenParamExists ?? 'Overwrite'}
                      onChange={(next) => update(k, { ...change, actionWhenParamExists: next })}
                    />
                  )}
                </Cell>
              </>
            ) : null}
            <button
              type="button"
              class="secondary small"
              onClick={() => onChange(rows.filter((_, i) => i !== k))}
            >
              Remove<span class="visually-hidden"> parameter change {k + 1}</span>
            </button>
            <FieldFindings pointer={at} />
          </SentenceLine>
        );
      })}
      <button
        type="button"
        class="secondary small"
        onClick={() => onChange([...rows, { type: 'Add', param: '', value: '' }])}
      >
        Add a parameter change
      </button>
    </fieldset>
  );
}
