// A key just made, shown this once: the service keeps only its hash, so this is the only moment it can
// be copied. It lives in the Keys page's state alone (never in storage or the address), and is gone
// when the person leaves the page or says they are done.
import { useEffect, useRef, useState } from 'preact/hooks';
import type { Schemas } from '../api.js';

export function ShownOnce({ made, onDone }: { made: Schemas['NewKey']; onDone: () => void }) {
  const heading = useRef<HTMLHeadingElement>(null);
  const field = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<string | null>(null);
  // Taken there: the key is what the person came for, and a screen reader reads the warning first.
  useEffect(() => heading.current?.focus(), []);

  async function copy() {
    field.current?.select();
    try {
      await navigator.clipboard.writeText(made.key);
      setCopied('Copied to the clipboard.');
    } catch {
      // No clipboard (an insecure origin, or refused): the text is selected for Ctrl+C instead.
      setCopied('Selected: press Ctrl+C (⌘C) to copy it.');
    }
  }

  return (
    <section class="shown-once" aria-labelledby="shown-once-title">
      <h2 id="shown-once-title" tabIndex={-1} ref={heading}>
        Your new key “{made.name}”
      </h2>
      <p>
        <strong>Copy it now: you will not see it again.</strong> Rulekeeper keeps only a hash of it. If you
        lose it, revoke it and make another.
      </p>
      <div class="field">
        <label for="new-key-value">The key ({made.scope})</label>
        <div class="copy-row">
          <input
            id="new-key-value"
            ref={field}
            readOnly
            spellcheck={false}
            autocomplete="off"
            value={made.key}
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
