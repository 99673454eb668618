// The template gallery: common rules written for Rulekeeper, each opened in the editor to adjust and
// save. The templates themselves are data (templates.ts).
import { TEMPLATES } from './templates.js';

export function TemplatesPage() {
  return (
    <section aria-labelledby="templates-title">
      <h1 id="templates-title">Templates</h1>
      <p>
        Start from a rule that already works: pick one, adjust the host or the values in the editor, and
        create it.
      </p>
      <ul class="template-list">
        {TEMPLATES.map((template) => (
          <li key={template.id} class="template-card">
            <h2 id={`template-${template.id}`}>
              <a href={`#/rules/new/${encodeURIComponent(template.id)}`}>{template.title}</a>
            </h2>
            <span class="tag">{template.rule.ruleType}</span>
            <p>{template.summary}</p>
          </li>
        ))}
      </ul>
    </section>
  );
}
