// A template as the editor's starting draft, and what the editor says about where it came from.
import type { RuleDraft } from '../rules/rule-draft.js';
import { templateById } from './templates.js';

export function templateDraft(id: string | undefined): RuleDraft | null {
  const template = id ? templateById(id) : undefined;
  if (!template) return null;
  const { rule } = template;
  return {
    name: rule.name,
    description: rule.description ?? '',
    // Inactive until switched on, as every new rule: the template shows what it does, the person decides.
    status: 'Inactive',
    ruleType: rule.ruleType,
    groupId: rule.groupId ?? '',
    pairs: structuredClone(rule.pairs) as unknown[],
  };
}

export function templateNotice(id: string | undefined): string | null {
  const template = id ? templateById(id) : undefined;
  return template
    ? `Filled in from the template “${template.title}”. ${template.rule.description ?? ''} Then create the rule.`
    : null;
}
