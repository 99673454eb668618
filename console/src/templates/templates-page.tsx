// The template gallery: common rules written for Rulekeeper, each opened in the editor to adjust and
// save. The templates themselves are data (templates.ts). Someone who may only read sees what each
// template does, with nothing to create from it.
import { useSession } from '../session.js';
import { ReadOnlyNote } from '../ui/read-only-note.js';
import { TEMPLATES } from './templates.js';

export function TemplatesPage() {
  const { canWrite } = useSession();
  return (
    <section aria-labelledby="templates-title">
      <h1 id="templates-title">Templates</h1>
      {canWrite ? (
        <p>
          Start from a rule that already works: pick one, adjust the host or the values in the editor, and
          create it.
        </p>
      ) : (
        <ReadOnlyNote can="read the templates, not create rules from them" />
      )}
      <ul class="template-list">
        {TEMPLATES.map((template) => (
          <li key={template.id} class="template-card">
            <h2 id={`template-${template.id}`}>
              {canWrite ? (
                <a href={`#/rules/new/${encodeURIComponent(template.id)}`}>{template.title}</a>
              ) : (
                template.title
              )}
            </h2>
            <span class="tag">{template.rule.ruleType}</span>
            <p>{template.summary}</p>
          </li>
        ))}
      </ul>
    </section>
  );
}
