// The workspace's rules: the API's filters and search, a page at a time, grouped under their
// groups (whose status shows, since an inactive group's rules do not act), each switched on or off
// in place. Sorted by name, type, pinned, status or last change, they are one list in that order, each
// row naming its group: under headings, the newest change could be last on the page, below other
// groups' rules. Sorted by group, they stand under their groups' headings, each group's by name.
// Follows the change stream: a change made elsewhere shows up without a reload. Someone who may only
// read is offered nothing that writes: no new rule, no selection, no switches.
// "Last acted" sorts by the runtimes' hits: GET /v1/hits gives the page's order (every rule, most
// recently acted first), and each rule of the page is read by id. The rules list itself has no such
// sort (its queries and read cache follow the revision, which hits do not move), so the filters do not
// apply to that order and are set aside while it is chosen.
import { useContext, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, type Group, type paths, type Rule } from '../api.js';
import { type Proposal, ProposeDialog, REVIEW_NOW_REQUIRED } from '../change-requests/propose-dialog.js';
import { RULE_TYPES } from '../forms/schema.js';
import { GroupOptions } from '../groups/group-options.js';
import { useGroups } from '../groups/use-groups.js';
import { LiveContext } from '../live-context.js';
import { describeError, useApi, useSession } from '../session.js';
import { mustPropose, useSettings } from '../settings/use-settings.js';
import { takeFlash } from '../ui/flash.js';
import { ReadOnlyNote } from '../ui/read-only-note.js';
import { SEARCH_FIELD_ID, takeSearchFocus } from '../ui/shortcuts.js';
import { BulkBar, type BulkOutcome } from './bulk-bar.js';
import { type Finding, findingsFor, useLint } from './lint-findings.js';
import { RuleRow } from './rule-row.js';

const PAGE_SIZE = 25;

interface Filters {
  status: string;
  ruleType: string;
  /** `*` for every group, `""` for ungrouped, else a group id. */
  groupId: string;
  /** `true`: pinned rules only; `false`: the others; `""`: every rule. */
  pinned: '' | 'true' | 'false';
  search: string;
  sort: RuleSort;
}

type RuleSort =
  | NonNullable<NonNullable<paths['/v1/rules']['get']['parameters']['query']>['sort']>
  /** The console's own: by the runtimes' last hit (GET /v1/hits). */
  | 'lastHit';

const SORTS: { sort: RuleSort; label: string }[] = [
  { sort: 'creationDate', label: 'Oldest first' },
  { sort: 'name', label: 'Name' },
  { sort: 'ruleType', label: 'Type' },
  { sort: 'group', label: 'Group' },
  { sort: 'pinned', label: 'Pinned first' },
  { sort: 'status', label: 'Active first' },
  { sort: '-modificationDate', label: 'Last changed' },
  { sort: 'lastHit', label: 'Last acted' },
];

const labelOf = (sort: RuleSort) => SORTS.find((option) => option.sort === sort)?.label ?? sort;

interface Page {
  rules: Rule[];
  total: number;
  nextOffset: number | null;
  /** Sorted by last hit: each rule's last hit. */
  lastHits?: Map<string, number | null>;
}

export function RulesPage() {
  const api = useApi();
  const { canWrite, canAdmin } = useSession();
  const { settings } = useSettings();
  const proposing = mustPropose(settings, canWrite, canAdmin);
  // Switching a rule where review is required of this person: proposed instead.
  const [proposal, setProposal] = useState<Proposal | null>(null);
  const changes = useContext(LiveContext);
  const { groups, reload: reloadGroups } = useGroups();
  const [filters, setFilters] = useState<Filters>({
    status: '',
    ruleType: '',
    groupId: '*',
    pinned: '',
    search: '',
    sort: 'creationDate',
  });
  const [search, setSearch] = useState('');
  const [offset, setOffset] = useState(0);
  const [page, setPage] = useState<Page | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState(takeFlash);
  // Selected rules by id, kept across pages and filters until acted on or cleared.
  const [selected, setSelected] = useState<Map<string, Rule>>(new Map());
  const [outcome, setOutcome] = useState<BulkOutcome | null>(null);
  const [reloads, setReloads] = useState(0);
  const findings = useLint();
  const searchField = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (takeSearchFocus()) searchField.current?.focus();
  }, []);

  // The search box filters as one types, once typing pauses (and only then back to the first page).
  useEffect(() => {
    if (search === filters.search) return;
    const timer = setTimeout(() => {
      setFilters((old) => ({ ...old, search }));
      setOffset(0);
    }, 250);
    return () => clearTimeout(timer);
  }, [search, filters.search]);

  useEffect(() => {
    if (filters.sort !== 'lastHit') return;
    let current = true;
    const query = { offset: String(offset), pageSize: String(PAGE_SIZE) };
    api((client) => client.GET('/v1/hits', { params: { query } }))
      .then(async (answer) => {
        // A rule deleted meanwhile is left out of the page rather than failing it.
        const rules = await Promise.all(
          answer.data.map((item) =>
            api((client) =>
              client.GET('/v1/rules/{ruleId}', { params: { path: { ruleId: item.ruleId } } }),
            ).then(
              (one) => one.data as Rule,
              () => null,
            ),
          ),
        );
        if (!current) return;
        setPage({
          rules: rules.filter((rule): rule is Rule => rule !== null),
          total: answer.total,
          nextOffset: answer.nextOffset,
          lastHits: new Map(answer.data.map((item) => [item.ruleId, item.lastHitAt])),
        });
        setError(null);
      })
      .catch((failure) => current && setError(describeError(failure)));
    return () => {
      current = false;
    };
  }, [api, filters.sort, offset, changes, reloads]);

  useEffect(() => {
    if (filters.sort === 'lastHit') return;
    const query = {
      offset: String(offset),
      pageSize: String(PAGE_SIZE),
      ...(filters.status ? { status: filters.status as Rule['status'] } : {}),
      ...(filters.ruleType ? { ruleType: filters.ruleType as Rule['ruleType'] } : {}),
      ...(filters.groupId !== '*' ? { groupId: filters.groupId } : {}),
      ...(filters.pinned ? { isFavourite: filters.pinned } : {}),
      ...(filters.search ? { search: filters.search } : {}),
      ...(filters.sort !== 'creationDate' ? { sort: filters.sort as Exclude<RuleSort, 'lastHit'> } : {}),
    };
    let current = true;
    api((client) => client.GET('/v1/rules', { params: { query } }))
      .then((answer) => {
        if (!current) return;
        setPage({ rules: answer.data, total: answer.total, nextOffset: answer.nextOffset });
        // A selected rule acts as it is now, not as it was when ticked.
        setSelected((old) => {
          const fresh = answer.data.filter((rule) => old.has(rule.id));
          return fresh.length ? new Map([...old, ...fresh.map((rule) => [rule.id, rule] as const)]) : old;
        });
        setError(null);
      })
      .catch((failure) => current && setError(describeError(failure)));
    return () => {
      current = false;
    };
  }, [api, filters, offset, changes, reloads]);
  useEffect(() => reloadGroups(), [changes]);

  async function switchRule(rule: Rule) {
    const status = rule.status === 'Active' ? 'Inactive' : 'Active';
    const proposed: Proposal = {
      operations: [{ op: 'update', kind: 'rule', id: rule.id, body: { status } }],
      title: `Switch the rule “${rule.name}” ${status === 'Active' ? 'on' : 'off'}`,
      why: 'This workspace requires review: your change is applied once someone else approves it.',
    };
    if (proposing) {
      setProposal(proposed);
      return;
    }
    try {
      await api((client) =>
        client.PUT('/v1/rules/{ruleId}', { params: { path: { ruleId: rule.id } }, body: { status } }),
      );
      setPage(
        (old) => old && { ...old, rules: old.rules.map((r) => (r.id === rule.id ? { ...r, status } : r)) },
      );
    } catch (failure) {
      if (failure instanceof ApiError && failure.code === 'REVIEW_REQUIRED') {
        // Said in the dialog that offers to propose it.
        setProposal({ ...proposed, why: REVIEW_NOW_REQUIRED });
      } else setError(`“${rule.name}” was not switched: ${describeError(failure)}`);
    }
  }

  /** Pins or unpins a rule (Requestly's favourite); proposed where review is required. */
  async function pinRule(rule: Rule) {
    const isFavourite = !rule.isFavourite;
    const proposed: Proposal = {
      operations: [{ op: 'update', kind: 'rule', id: rule.id, body: { isFavourite } }],
      title: `${isFavourite ? 'Pin' : 'Unpin'} the rule “${rule.name}”`,
      why: 'This workspace requires review: your change is applied once someone else approves it.',
    };
    if (proposing) {
      setProposal(proposed);
      return;
    }
    try {
      await api((client) =>
        client.PUT('/v1/rules/{ruleId}', { params: { path: { ruleId: rule.id } }, body: { isFavourite } }),
      );
      setPage(
        (old) =>
          old && { ...old, rules: old.rules.map((r) => (r.id === rule.id ? { ...r, isFavourite } : r)) },
      );
    } catch (failure) {
      if (failure instanceof ApiError && failure.code === 'REVIEW_REQUIRED') {
        setProposal({ ...proposed, why: REVIEW_NOW_REQUIRED });
      } else
        setError(`“${rule.name}” was not ${isFavourite ? 'pinned' : 'unpinned'}: ${describeError(failure)}`);
    }
  }

  function select(rules: Rule[], on: boolean) {
    setSelected((old) => {
      const next = new Map(old);
      for (const rule of rules) {
        if (on) next.set(rule.id, rule);
        else next.delete(rule.id);
      }
      return next;
    });
  }

  function acted(result: BulkOutcome) {
    setOutcome(result);
    setNotice(null);
    if (result.clearSelection) setSelected(new Map());
    setReloads((count) => count + 1);
  }

  const filter = (field: keyof Filters) => (event: Event) => {
    setFilters({ ...filters, [field]: (event.currentTarget as HTMLSelectElement).value });
    setOffset(0);
  };

  return (
    <section aria-labelledby="rules-title">
      <div class="page-head">
        <h1 id="rules-title">Rules</h1>
        <div class="actions">
          <a class="button secondary" href="#/deleted">
            Recently deleted
          </a>
          {canWrite ? (
            <>
              <a class="button secondary" href="#/templates">
                From a template
              </a>
              <a class="button" href="#/rules/new">
                New rule
              </a>
            </>
          ) : null}
        </div>
      </div>
      {canWrite ? null : <ReadOnlyNote can="view rules" />}
      {notice ? (
        <p class="notice" role="status">
          {notice}
        </p>
      ) : null}
      <form class="filters" aria-label="Filter rules" onSubmit={(e) => e.preventDefault()}>
        <div class="field">
          <label for={SEARCH_FIELD_ID}>Search names, descriptions and sources</label>
          <input
            id={SEARCH_FIELD_ID}
            ref={searchField}
            type="search"
            value={search}
            onInput={(e) => setSearch(e.currentTarget.value)}
            disabled={filters.sort === 'lastHit'}
          />
        </div>
        <div class="field">
          <label for="filter-status">Status</label>
          <select
            id="filter-status"
            value={filters.status}
            onChange={filter('status')}
            disabled={filters.sort === 'lastHit'}
          >
            <option value="">Any</option>
            <option>Active</option>
            <option>Inactive</option>
          </select>
        </div>
        <div class="field">
          <label for="filter-type">Type</label>
          <select
            id="filter-type"
            value={filters.ruleType}
            onChange={filter('ruleType')}
            disabled={filters.sort === 'lastHit'}
          >
            <option value="">Any</option>
            {RULE_TYPES.map((type) => (
              <option key={type}>{type}</option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="filter-group">Group</label>
          <select
            id="filter-group"
            value={filters.groupId}
            onChange={filter('groupId')}
            disabled={filters.sort === 'lastHit'}
          >
            <option value="*">Any</option>
            <GroupOptions groups={groups} />
          </select>
        </div>
        <div class="field">
          <label for="filter-pinned">Pinned</label>
          <select
            id="filter-pinned"
            value={filters.pinned}
            onChange={filter('pinned')}
            disabled={filters.sort === 'lastHit'}
          >
            <option value="">Any</option>
            <option value="true">Pinned only</option>
            <option value="false">Not pinned</option>
          </select>
        </div>
        <div class="field">
          <label for="filter-sort">Sort by</label>
          <select id="filter-sort" value={filters.sort} onChange={filter('sort')}>
            {SORTS.map(({ sort, label }) => (
              <option key={sort} value={sort}>
                {label}
              </option>
            ))}
          </select>
        </div>
      </form>
      {filters.sort === 'lastHit' ? (
        <p class="hint">
          Every rule, most recently acted first, as the proxy, the extension, the Playwright fixture and
          runtimes report it (kept 90 days); the filters do not apply to this order.
        </p>
      ) : null}
      {error ? (
        <p class="error" role="alert">
          {error}
        </p>
      ) : null}
      {canWrite && page && page.rules.length > 0 ? (
        <BulkBar
          visible={page.rules}
          selected={selected}
          groups={groups}
          outcome={outcome}
          onSelect={select}
          onClear={() => setSelected(new Map())}
          onDone={acted}
        />
      ) : null}
      {page ? (
        <RuleSections
          page={page}
          // By group, the rules stand under their groups' headings, as in the default order.
          sortLabel={
            filters.sort === 'creationDate' || filters.sort === 'group' ? null : labelOf(filters.sort)
          }
          groups={groups ?? []}
          findings={findings}
          selected={selected}
          onSelect={canWrite ? select : null}
          onSwitch={canWrite ? switchRule : null}
          onPin={canWrite ? pinRule : null}
        />
      ) : (
        <p>Loading…</p>
      )}
      {page && page.total > 0 ? (
        <nav class="pager" aria-label="Pages of rules">
          <button
            type="button"
            class="secondary"
            disabled={offset === 0}
            onClick={() => setOffset(Math.max(0, offset - PAGE_SIZE))}
          >
            Previous
          </button>
          <span aria-live="polite">
            {offset + 1}–{offset + page.rules.length} of {page.total}
          </span>
          <button
            type="button"
            class="secondary"
            disabled={page.nextOffset === null}
            onClick={() => setOffset(page.nextOffset ?? offset)}
          >
            Next
          </button>
        </nav>
      ) : null}
      {proposal ? <ProposeDialog proposal={proposal} onCancel={() => setProposal(null)} /> : null}
    </section>
  );
}

function RuleSections({
  page,
  sortLabel,
  groups,
  findings,
  selected,
  onSelect,
  onSwitch,
  onPin,
}: {
  page: Page;
  /** The sort chosen, when it is not the default: one list in its order instead of group headings. */
  sortLabel: string | null;
  groups: Group[];
  findings: Finding[] | null;
  selected: Map<string, Rule>;
  /** Null for someone who may only read. */
  onSelect: ((rules: Rule[], on: boolean) => void) | null;
  onSwitch: ((rule: Rule) => void) | null;
  onPin: ((rule: Rule) => void) | null;
}) {
  if (page.rules.length === 0) {
    return onSwitch ? (
      <p class="empty">
        No rules here. <a href="#/rules/new">Create a rule</a>, start from a{' '}
        <a href="#/templates">template</a> or <a href="#/move">import a Requestly file</a>.
      </p>
    ) : (
      <p class="empty">No rules here.</p>
    );
  }
  const row = (rule: Rule, group?: Group) => (
    <RuleRow
      key={rule.id}
      rule={rule}
      group={group}
      lastHitAt={page.lastHits ? (page.lastHits.get(rule.id) ?? null) : undefined}
      findings={findingsFor(findings, rule.id)}
      selected={selected.has(rule.id)}
      onSelect={onSelect && ((on) => onSelect([rule], on))}
      onSwitch={onSwitch && (() => onSwitch(rule))}
      onPin={onPin && (() => onPin(rule))}
    />
  );
  if (sortLabel) {
    const byId = new Map(groups.map((group) => [group.id, group]));
    return (
      <ul class="rule-list" aria-label={`Rules sorted by ${sortLabel.toLowerCase()}`}>
        {page.rules.map((rule) => row(rule, byId.get(rule.groupId)))}
      </ul>
    );
  }
  // Sections in the order of the groups list, ungrouped rules last.
  const sections = [...groups.map((group) => ({ id: group.id, group })), { id: '', group: undefined }]
    .map((section) => ({ ...section, rules: page.rules.filter((rule) => rule.groupId === section.id) }))
    .filter((section) => section.rules.length > 0);
  const known = new Set(sections.map((section) => section.id));
  // A rule whose group is not in the list yet (created a moment ago elsewhere) still shows.
  const strays = page.rules.filter((rule) => !known.has(rule.groupId));
  if (strays.length) sections.push({ id: '?', group: undefined, rules: strays });
  return (
    <>
      {sections.map(({ id, group, rules }) => (
        <section class="rule-group" key={id} aria-label={group ? `Group ${group.name}` : 'Ungrouped rules'}>
          <h2>
            {group ? group.name : 'Ungrouped'}
            {group ? (
              <span class={`badge ${group.status === 'Active' ? 'on' : 'off'}`}>
                {group.status === 'Active' ? 'Group active' : 'Group inactive: its rules do not act'}
              </span>
            ) : null}
          </h2>
          <ul class="rule-list">{rules.map((rule) => row(rule))}</ul>
        </section>
      ))}
    </>
  );
}
