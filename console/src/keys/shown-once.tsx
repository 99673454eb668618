// A secret just made, shown this once: a new key (the service keeps only its hash) or a webhook's
// signing secret (kept write-only), so this is the only moment it can be copied. It lives in its page's
// state alone (never in storage or the address), and is gone when the person leaves the page or says
// they are done.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Schemas } from '../api.js';

export interface Secret {
  /** The heading, e.g. Your new key “CI”. */
  title: string;
  /** Why it is shown once, after "Copy it now: you will not see it again." */
  why: ComponentChildren;
  /** The field's label. */
  label: string;
  value: string;
}

/** A new key's words. */
export const keySecret = (made: Schemas['NewKey']): Secret => ({
  title: `Your new key “${made.name}”`,
  why: 'Rulekeeper keeps only a hash of it. If you lose it, revoke it and make another.',
  label: `The key (${made.scope})`,
  value: made.key,
});

export function ShownOnce({ secret, onDone }: { secret: Secret; onDone: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  const field = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<string | null>(null);
  // Taken there: the secret is what the person came for, and a screen reader reads the warning first.
  useEffect(() => heading.current?.focus(), []);

  async function copy() {
    field.current?.select();
    try {
      await navigator.clipboard.writeText(secret.value);
      setCopied('Copied to the clipboard.');
    } catch {
      // No clipboard (an insecure origin, or refused): the text is selected for Ctrl+C instead.
      setCopied('Selected: press Ctrl+C (⌘C) to copy it.');
    }
  }

  return (
    <section class="shown-once" aria-labelledby="shown-once-title">
      <h2 id="shown-once-title" tabIndex={-1} ref={heading}>
        {secret.title}
      </h2>
      <p>
        <strong>Copy it now: you will not see it again.</strong> {secret.why}
      </p>
      <div class="field">
        <label for="shown-once-value">{secret.label}</label>
        <div class="copy-row">
          <input
            id="shown-once-value"
            ref={field}
            readOnly
            spellcheck={false}
            autocomplete="off"
            value={secret.value}
            onFocus={(event) => event.currentTarget.select()}
          />
          <button type="button" onClick={copy}>
            Copy
          </button>
        </div>
        <p class="hint" role="status">
          {copied ?? ''}
        </p>
      </div>
      <button type="button" class="secondary" onClick={onDone}>
        I have copied it
      </button>
    </section>
  );
}
