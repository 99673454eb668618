// The rule being edited as JSON: the same value as the form (switching views shows the other's
// edits), for pasting a rule or editing what a form makes slow. Text that does not parse is kept as
// typed, with the parser's message, and changes nothing until it parses.
import { useState } from 'preact/hooks';

export function JsonView({ value, onChange }: { value: unknown; onChange: (value: unknown) => void }) {
  const [text, setText] = useState(() => JSON.stringify(value, null, 2));
  const [problem, setProblem] = useState<string | null>(null);
  return (
    <div class={problem ? 'field invalid' : 'field'}>
      <label for="rule-json">The rule as JSON</label>
      <textarea
        id="rule-json"
        class="json"
        rows={24}
        spellcheck={false}
        value={text}
        aria-invalid={problem ? 'true' : undefined}
        aria-describedby={problem ? 'rule-json-error' : 'rule-json-hint'}
        onInput={(event) => {
          const next = event.currentTarget.value;
          setText(next);
          try {
            const parsed: unknown = JSON.parse(next);
            if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
              throw new Error('A rule is a JSON object.');
            setProblem(null);
            onChange(parsed);
          } catch (error) {
            setProblem(error instanceof Error ? error.message : String(error));
          }
        }}
      />
      <small class="hint" id="rule-json-hint">
        The body sent to the API on save, as the form shows it.
      </small>
      {problem ? (
        <p class="field-error" id="rule-json-error">
          Not valid JSON yet: {problem}
        </p>
      ) : null}
    </div>
  );
}
