// A question before something that cannot be undone, in a native modal <dialog>: focus is kept
// inside it, Escape cancels, and the page behind is inert.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

export interface ConfirmProps {
  title: string;
  confirmLabel: string;
  children: ComponentChildren;
  onConfirm: () => void;
  onCancel: () => void;
}

export function ConfirmDialog({ title, confirmLabel, children, onConfirm, onCancel }: ConfirmProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    dialog.current?.showModal();
  }, []);
  return (
    <dialog ref={dialog} aria-labelledby="confirm-title" onCancel={onCancel} onClose={onCancel}>
      <h2 id="confirm-title">{title}</h2>
      <div>{children}</div>
      <div class="actions">
        <button type="button" class="danger" onClick={onConfirm}>
          {confirmLabel}
        </button>
        <button type="button" class="secondary" onClick={onCancel} autofocus>
          Cancel
        </button>
      </div>
    </dialog>
  );
}
