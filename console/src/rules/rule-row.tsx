// One rule in the list: a box to select it, its pin (Requestly's favourite), its name (to open it),
// its type, what it matches in short, when it last changed, its lint findings and its switch (its status in words, to someone who
// may only read); in a list sorted across groups, its group too (an inactive group's rules do not act).
import type { Group, Rule } from '../api.js';
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
  onPin,
  group,
  lastHitAt,
}: {
  rule: Rule;
  /** Shown when the list is not under group headings; left out for an ungrouped rule. */
  group?: Pick<Group, 'name' | 'status'> | undefined;
  findings: Finding[];
  selected: boolean;
  /** Null for someone who may only read: nothing to select, no switch, the status as text. */
  onSelect: ((on: boolean) => void) | null;
  onSwitch: (() => void) | null;
  /** Null for someone who may only read: a pinned rule says so, with nothing to press. */
  onPin: (() => void) | null;
  /** When the list is sorted by last hit: when it last acted (null: not in the kept 90 days). */
  lastHitAt?: number | null | undefined;
}) {
  const href = `#/rules/${encodeURIComponent(rule.id)}`;
  const name = rule.name || '(no name)';
  return (
    <li class={`rule-row${selected ? ' selected' : ''}`}>
      {onSelect ? (
        <input
          type="checkbox"
          class="select"
          checked={selected}
          aria-label={`Select ${name}`}
          onChange={(event) => onSelect(event.currentTarget.checked)}
        />
      ) : null}
      {onPin ? (
        <button
          type="button"
          class={rule.isFavourite ? 'pin pinned' : 'pin'}
          aria-pressed={rule.isFavourite}
          aria-label={`Pin ${name}`}
          title={rule.isFavourite ? 'Pinned: press to unpin' : 'Pin it'}
          onClick={onPin}
        >
          <span aria-hidden="true">{rule.isFavourite ? '★' : '☆'}</span>
        </button>
      ) : rule.isFavourite ? (
        <span class="pin pinned" title="Pinned">
          <span aria-hidden="true">★</span>
          <span class="visually-hidden">Pinned</span>
        </span>
      ) : null}
      <div class="rule-main">
        <a class="rule-name" href={href}>
          {name}
        </a>
        <span class="rule-meta">
          <code class="source">{sourceSummary(rule)}</code>
          <span class="changed">
            <RelativeTime at={rule.modificationDate} prefix="changed " />
          </span>
          {lastHitAt === undefined ? null : (
            <span class="last-hit">
              {lastHitAt === null ? 'never acted' : <RelativeTime at={lastHitAt} prefix="acted " />}
            </span>
          )}
          {group ? (
            <span class="in-group">
              in {group.name}
              {/* A space of its own: the badge is read as words apart from the name. */}
              {group.status === 'Active' ? null : ' '}
              {group.status === 'Active' ? null : <span class="badge off">group inactive: does not act</span>}
            </span>
          ) : null}
        </span>
      </div>
      <span class="tag">{rule.ruleType}</span>
      <LintBadge findings={findings} href={href} />
      <StatusSwitch name={rule.name || rule.id} status={rule.status} onSwitch={onSwitch} />
    </li>
  );
}
