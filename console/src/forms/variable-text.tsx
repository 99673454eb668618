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
  referenceNotes,
  takesVariables,
} from './variable-references.js';

type BoxAttributes = JSX.InputHTMLAttributes<HTMLInputElement> & { rows?: number };
type Box = HTMLInputElement | HTMLTextAreaElement;
/** The same attributes on a textarea (those only an input has are not given to one). */
const asArea = (attributes: object) => attributes as JSX.TextareaHTMLAttributes<HTMLTextAreaElement>;

/** At most this many names are offered at once: typing more of the name narrows them. */
const OFFERED = 8;

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
  const value = (name: string) => {
    const variable = variables.find((candidate) => candidate.name === name);
    if (!variable || !Object.hasOwn(variable.values, chosen)) return `no value in ${chosen}`;
    return variable.secret ? 'secret' : String(variable.values[chosen]);
  };
  return (
    <>
      {multiline ? <textarea {...asArea(box)} /> : <input {...box} />}
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
              // Chosen before the box loses its focus.
              onMouseDown={(event) => {
                event.preventDefault();
                const box = document.getElementById(id);
                if (box instanceof HTMLInputElement || box instanceof HTMLTextAreaElement) choose(box, name);
              }}
            >
              <code>{`{{${name}}}`}</code> <span class="hint">{value(name)}</span>
            </div>
          ))}
        </div>
      ) : null}
      <span class="visually-hidden" role="status">
        {open
          ? `${names.length} ${names.length === 1 ? 'variable' : 'variables'}: arrows to choose, Enter to write it`
          : ''}
      </span>
      {notes.length ? (
        <ul class="hint variable-notes" id={notesId}>
          {notes.map((note) => (
            <li key={note.name}>
              <code>{`{{${note.name}}}`}</code>{' '}
              {note.problem === 'unknown'
                ? 'names no variable of this workspace: it stays as written.'
                : `has no value in ${chosen}: there it stays as written.`}
            </li>
          ))}
        </ul>
      ) : null}
    </>
  );
}
