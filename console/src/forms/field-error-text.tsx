// A field's refusals under it, joined on one line; its id is what the control's aria-describedby names.
export function FieldErrorText({ id, messages }: { id: string; messages: string[] }) {
  return messages.length ? (
    <p class="field-error" id={`${id}-error`}>
      {messages.join('; ')}
    </p>
  ) : null;
}
