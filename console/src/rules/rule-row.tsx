// One rule in the list: a box to select it, its name (to open it), its type, what it matches in
// short, when it last changed, its lint findings and its switch.
import type { Rule } from '../api.js';
import { RelativeTime } from '../ui/relative-time.js';
import { StatusSwitch } from '../ui/status-switch.js';
import { type Finding, LintBadge } from './lint-findings.js';
import { sourceSummary } from './source-summary.js';

export function RuleRow({
  rule,
  findings,
  selected,
  onSelect,
  onSwitch,
}: {
  rule: Rule;
  findings: Finding[];
  selected: boolean;
  onSelect: (on: boolean) => void;
  onSwitch: () => void;
}) {
  const href = `#/rules/${encodeURIComponent(rule.id)}`;
  const name = rule.name || '(no name)';
  return (
    <li class={`rule-row${selected ? ' selected' : ''}`}>
      <input
        type="checkbox"
        class="select"
        checked={selected}
        aria-label={`Select ${name}`}
        onChange={(event) => onSelect(event.currentTarget.checked)}
      />
      <div class="rule-main">
        <a class="rule-name" href={href}>
          {name}
        </a>
        <span class="rule-meta">
          <code class="source">{sourceSummary(rule)}</code>
          <span class="changed">
            <RelativeTime at={rule.modificationDate} prefix="changed " />
          </span>
        </span>
      </div>
      <span class="tag">{rule.ruleType}</span>
      <LintBadge findings={findings} href={href} />
      <StatusSwitch name={rule.name || rule.id} status={rule.status} onSwitch={onSwitch} />
    </li>
  );
}
