// What went wrong with a save, at the top of the form: the message, and each detail in words ("Pair 1 ·
// Destination: must not be empty") as a link to its field (focus moves there), so a keyboard or
// screen-reader user finds it as a sighted one does.
import { useEffect, useRef } from 'preact/hooks';
import type { ApiError } from '../api.js';
import { fieldId } from '../forms/field-errors.js';
import { detailWords } from '../forms/labels.js';

export function ErrorSummary({ error, title }: { error: ApiError | string | null; title?: string }) {
  const box = useRef<HTMLDivElement>(null);
  // Saved from the bottom of a long form, the answer is at its top: taken there, so it is seen.
  useEffect(() => {
    box.current?.focus();
  }, [error]);
  if (!error) return null;
  const details = typeof error === 'string' ? [] : error.details;
  // With details, the service's message is its error's name ("Rule Payload is invalid"): the details
  // say what is wrong, each with the field's label and the pair's number as the form shows them.
  const message =
    typeof error === 'string'
      ? error
      : details.length
        ? details.length === 1
          ? 'One field needs a change:'
          : `${details.length} fields need a change:`
        : error.message;
  return (
    <div class="error-summary" role="alert" tabIndex={-1} ref={box}>
      <p>
        <strong>{title ?? message}</strong>
        {title ? ` ${message}` : null}
      </p>
      {details.length ? (
        <ul>
          {details.map((detail) => (
            <li key={detail.path + detail.message}>
              <a
                href={`#${fieldId(detail.path)}`}
                onClick={(event) => {
                  event.preventDefault();
                  focusField(detail.path);
                }}
              >
                {detailWords(detail)}
              </a>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/** Focuses the field at a pointer, or the nearest one above it that is on the page. */
function focusField(pointer: string): void {
  for (let path = pointer; ; path = path.slice(0, path.lastIndexOf('/'))) {
    const element = document.getElementById(fieldId(path));
    if (element) {
      const target = element.matches('fieldset')
        ? (element.querySelector('input, select, textarea, button') ?? element)
        : element;
      (target as HTMLElement).focus();
      element.scrollIntoView({ block: 'center' });
      return;
    }
    if (!path) return;
  }
}
