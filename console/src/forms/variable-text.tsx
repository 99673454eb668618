// A text box (or area) of a rule's field that takes `{{NAME}}`: typing `{{` offers the workspace's
// variables (arrows choose, Enter or Tab writes `{{NAME}}`, Escape closes), and a `{{NAME}}` that will
// stay as written (no such variable, or none with a value in the environment chosen) is said under it.
// A drop-in for <input>/<textarea>: the same attributes, the box still the field's direct child, and
// a choice reaches the form as an ordinary input event. In a field that takes no variables it is
// the plain box.
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import { useEnvironments } from '../environments/environment-context.js';
import {
  complete,
  matchingNames,
  type OpenReference,
  openReference,
  type ReferenceNote,
  referenceNotes,
  takesVariables,
} from './variable-references.js';

type BoxAttributes = JSX.InputHTMLAttributes<HTMLInputElement> & { rows?: number };
type Box = HTMLInputElement | HTMLTextAreaElement;
/** The same attributes on a textarea (those only an input has are not given to one). */
const asArea = (attributes: object) => attributes as JSX.TextareaHTMLAttributes<HTMLTextAreaElement>;

/** At most this many names are offered at once: typing more of the name narrows them. */
export const OFFERED = 8;

export function VariableText({ multiline, ...attributes }: BoxAttributes & { multiline?: boolean }) {
  const { variables, chosen } = useEnvironments();
  const [reference, setReference] = useState<OpenReference | null>(null);
  const [active, setActive] = useState(0);
  const offers = takesVariables(attributes.name as string | undefined) && attributes.type !== 'number';
  if (!offers || !variables)
    return multiline ? <textarea {...asArea(attributes)} /> : <input {...attributes} />;

  const id = String(attributes.id ?? attributes.name);
  const text = typeof attributes.value === 'string' ? attributes.value : String(attributes.value ?? '');
  const names = reference
    ? matchingNames(
        variables.map((variable) => variable.name),
        reference.prefix,
      ).slice(0, OFFERED)
    : [];
  const open = names.length > 0;
  const notes = referenceNotes(text, variables, chosen);
  const listId = `${id}-variables`;
  const notesId = `${id}-variable-notes`;

  /** Opens, narrows or closes the offer after the text or the caret moved. */
  const follow = (box: Box) => {
    const found =
      box.selectionStart === box.selectionEnd ? openReference(box.value, box.selectionStart ?? 0) : null;
    setReference(found);
    if (found?.prefix !== reference?.prefix || !found) setActive(0);
  };

  const choose = (box: Box, name: string) => {
    if (!reference) return;
    const done = complete(box.value, box.selectionStart ?? box.value.length, reference, name);
    box.value = done.text;
    box.setSelectionRange(done.caret, done.caret);
    // The form hears of it as of a key typed: its onInput reads the box.
    box.dispatchEvent(new Event('input', { bubbles: true }));
    setReference(null);
  };

  const handlers = {
    onInput: (event: JSX.TargetedEvent<Box, Event>) => {
      (attributes.onInput as ((event: Event) => void) | undefined)?.(event);
      follow(event.currentTarget);
    },
    onKeyDown: (event: JSX.TargetedKeyboardEvent<Box>) => {
      if (open) {
        const move = { ArrowDown: 1, ArrowUp: -1 }[event.key];
        if (move !== undefined) {
          event.preventDefault();
          setActive((active + move + names.length) % names.length);
          return;
        }
        if (event.key === 'Enter' || event.key === 'Tab') {
          // Enter would save the form; Tab would leave: both write the name instead.
          event.preventDefault();
          choose(event.currentTarget, names[active] as string);
          return;
        }
        if (event.key === 'Escape') {
          // Closes the offer only, not a dialog the field may be in.
          event.preventDefault();
          event.stopPropagation();
          setReference(null);
          return;
        }
      }
      (attributes.onKeyDown as ((event: KeyboardEvent) => void) | undefined)?.(event);
    },
    onKeyUp: (event: JSX.TargetedKeyboardEvent<Box>) => {
      if (['ArrowLeft', 'ArrowRight', 'Home', 'End'].includes(event.key)) follow(event.currentTarget);
    },
    onClick: (event: JSX.TargetedMouseEvent<Box>) => follow(event.currentTarget),
    onBlur: (event: JSX.TargetedFocusEvent<Box>) => {
      setReference(null);
      (attributes.onBlur as ((event: FocusEvent) => void) | undefined)?.(event);
    },
  };
  const described = [attributes['aria-describedby'], notes.length ? notesId : ''].filter(Boolean).join(' ');
  const box = {
    ...attributes,
    ...handlers,
    'aria-autocomplete': 'list' as const,
    'aria-controls': open ? listId : undefined,
    'aria-activedescendant': open ? `${listId}-${active}` : undefined,
    'aria-describedby': described || undefined,
  };
  return (
    <>
      {multiline ? <textarea {...asArea(box)} /> : <input {...box} />}
      <VariableChoices
        listId={listId}
        names={names}
        active={active}
        onChoose={(name) => {
          const box = document.getElementById(id);
          if (box instanceof HTMLInputElement || box instanceof HTMLTextAreaElement) choose(box, name);
        }}
      />
      <VariableNotes id={notesId} notes={notes} />
    </>
  );
}

/**
 * The variables offered for a `{{` being typed, and what a screen reader hears of them: shared by
 * the text boxes here and the code editors (forms/code-field.tsx). The box keeps the focus; an option
 * is chosen before the box would lose it.
 */
export function VariableChoices({
  listId,
  names,
  active,
  onChoose,
  announceActive = false,
}: {
  listId: string;
  names: string[];
  active: number;
  onChoose: (name: string) => void;
  /** Says the option chosen by the arrows (where the box cannot point at it: a code editor). */
  announceActive?: boolean;
}) {
  const { variables, chosen } = useEnvironments();
  const open = names.length > 0;
  const value = (name: string) => {
    const variable = variables?.find((candidate) => candidate.name === name);
    if (!variable || !Object.hasOwn(variable.values, chosen)) return `no value in ${chosen}`;
    return variable.secret ? 'secret' : String(variable.values[chosen]);
  };
  const count = `${names.length} ${names.length === 1 ? 'variable' : 'variables'}`;
  return (
    <>
      {open ? (
        <div class="variable-choices" role="listbox" id={listId} aria-label="Variables">
          {names.map((name, index) => (
            <div
              key={name}
              id={`${listId}-${index}`}
              role="option"
              // Never focused itself: the box keeps the focus and points at it (aria-activedescendant).
              tabIndex={-1}
              aria-selected={index === active}
              onMouseDown={(event) => {
                event.preventDefault();
                onChoose(name);
              }}
            >
              <code>{`{{${name}}}`}</code> <span class="hint">{value(name)}</span>
            </div>
          ))}
        </div>
      ) : null}
      <span class="visually-hidden" role="status">
        {open
          ? announceActive
            ? `${names[active]}, ${active + 1} of ${count}: arrows to choose, Enter to write it`
            : `${count}: arrows to choose, Enter to write it`
          : ''}
      </span>
    </>
  );
}

/** The `{{NAME}}` of a text that will stay as written, said under its box. */
export function VariableNotes({ id, notes }: { id: string; notes: ReferenceNote[] }) {
  const { chosen } = useEnvironments();
  return notes.length ? (
    <ul class="hint variable-notes" id={id}>
      {notes.map((note) => (
        <li key={note.name}>
          <code>{`{{${note.name}}}`}</code>{' '}
          {note.problem === 'unknown'
            ? 'names no variable of this workspace: it stays as written.'
            : `has no value in ${chosen}: there it stays as written.`}
        </li>
      ))}
    </ul>
  ) : null;
}
