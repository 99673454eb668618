// Try it: what the workspace's rules do to a request, and why.
import { TraceForm } from './trace-form.js';

export function TryItPage() {
  return (
    <section aria-labelledby="try-title">
      <h1 id="try-title">Try a request</h1>
      <p>Send a URL through the workspace's rules and see what they would do to it, rule by rule.</p>
      <TraceForm submitLabel="Try it" idPrefix="try" />
    </section>
  );
}
