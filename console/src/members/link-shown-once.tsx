// A single-use link just made (an invite, a password reset), shown this once: the service keeps only
// its hash. It lives in the page's state alone, gone when the person leaves the page or is done.
import { useEffect, useRef, useState } from 'preact/hooks';

export function LinkShownOnce({
  title,
  link,
  note,
  onDone,
}: {
  title: string;
  link: string;
  /** What to do with it, and until when it works. */
  note: string;
  onDone: () => void;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  const field = useRef<HTMLInputElement>(null);
  const [copied, setCopied] = useState<string | null>(null);
  useEffect(() => heading.current?.focus(), []);

  async function copy() {
    field.current?.select();
    try {
      await navigator.clipboard.writeText(link);
      setCopied('Copied to the clipboard.');
    } catch {
      setCopied('Selected: press Ctrl+C (⌘C) to copy it.');
    }
  }

  return (
    <section class="shown-once" aria-labelledby="link-shown-title">
      <h2 id="link-shown-title" tabIndex={-1} ref={heading}>
        {title}
      </h2>
      <p>
        <strong>Copy it now: you will not see it again.</strong> {note}
      </p>
      <div class="field">
        <label for="link-shown-value">The link</label>
        <div class="copy-row">
          <input
            id="link-shown-value"
            ref={field}
            readOnly
            spellcheck={false}
            autocomplete="off"
            value={link}
            onFocus={(event) => event.currentTarget.select()}
          />
          <button type="button" onClick={copy}>
            Copy
          </button>
        </div>
        <p class="hint" role="status">
          {copied}
        </p>
      </div>
      <button type="button" class="secondary" onClick={onDone}>
        Done
      </button>
    </section>
  );
}
