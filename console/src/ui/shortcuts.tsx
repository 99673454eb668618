// Keyboard shortcuts for the whole console: `/` search the rules, `n` a new rule, `?` the list of
// them. A key typed into a field (or an editor, or an open dialog) is text, never a shortcut. `n` is
// neither offered nor listed to someone who may not create rules.
import { useEffect, useRef } from 'preact/hooks';
import { navigate } from '../route.js';

export const SHORTCUTS: readonly { keys: string; does: string; writes?: true }[] = [
  { keys: '/', does: 'Search the rules' },
  { keys: 'n', does: 'New rule', writes: true },
  { keys: '?', does: 'Show these shortcuts' },
];

/** The search box to focus once the rules list is shown (a `/` pressed on another screen). */
let searchWanted = false;

export function takeSearchFocus(): boolean {
  const wanted = searchWanted;
  searchWanted = false;
  return wanted;
}

export const SEARCH_FIELD_ID = 'filter-search';

function typingIn(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return (
    target.isContentEditable ||
    target.closest('input, textarea, select, [contenteditable]:not([contenteditable="false"])') !== null
  );
}

export function useShortcuts(showHelp: () => void, canWrite: boolean): void {
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
      // The element typed in, not the event's target: a code editor lives in a shadow root, whose
      // keys reach the page retargeted to its host (a plain div), and `n` there is text too.
      if (typingIn(event.composedPath()[0] ?? event.target) || document.querySelector('dialog[open]')) return;
      if (event.key === '/') {
        event.preventDefault();
        const field = document.getElementById(SEARCH_FIELD_ID);
        if (field) field.focus();
        else {
          searchWanted = true;
          navigate({ page: 'rules' });
        }
      } else if (event.key === 'n' && canWrite) {
        event.preventDefault();
        navigate({ page: 'rule', ruleId: null });
      } else if (event.key === '?') {
        event.preventDefault();
        showHelp();
      }
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, [showHelp, canWrite]);
}

export function ShortcutsDialog({ onClose, canWrite }: { onClose: () => void; canWrite: boolean }) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    dialog.current?.showModal();
  }, []);
  return (
    <dialog ref={dialog} aria-labelledby="shortcuts-title" onClose={onClose}>
      <h2 id="shortcuts-title">Keyboard shortcuts</h2>
      <p>They work anywhere in the console except while typing in a field.</p>
      <dl class="shortcuts">
        {SHORTCUTS.filter(({ writes }) => canWrite || !writes).map(({ keys, does }) => (
          <div key={keys}>
            <dt>
              <kbd>{keys}</kbd>
            </dt>
            <dd>{does}</dd>
          </div>
        ))}
      </dl>
      <div class="actions">
        <button type="button" onClick={onClose} autofocus>
          Close
        </button>
      </div>
    </dialog>
  );
}
