// One compile of a workspace's browser rules, where it runs (a worker of the browser rules pool, or this
// thread for the CLI): its rules, sent as pages of UTF-8 JSON that are moved, not copied, compiled to
// Chrome's rules and written as the answer's JSON, sent back as UTF-8 bytes (moved too). Compiling
// 100,000 rules took 10–20 s of CPU on the event loop, in slices that every other request waited between.
import { createBrowserRuleCompiler, type RuleTranslation } from '../../engine/dnr/index.js';
import { resolveInEnvironment } from '../../engine/variables.js';
import { checkResolvedPairs } from '../../engine/variables-check.js';
import { decodePage } from '../../jobs/job-pages.js';
import type { ListedRuleRow } from '../shared/listed-rules-store.js';

export interface BrowserRulesJob {
  workspaceId: string;
  /** Every rule of the workspace in list order, as pages of `{rules}` (job-pages.ts's rulePages). */
  pages: Uint8Array[];
  /** The values of the environment the rules are compiled in (decisions §20), by name. */
  values?: [string, string][];
}

/** The body of GET /v1/browser-rules, as UTF-8 JSON. */
export type BrowserRulesOutcome = { json: Uint8Array };

/**
 * Rules' translations kept from the last compile of each workspace, all workspaces together (a few
 * hundred bytes each; a workspace past Chrome's 30,000 rules has no more translated than that).
 */
const KEPT_TRANSLATIONS = 100_000;

const encoder = new TextEncoder();

/** The workspace's rules in list order; a rule read twice (moved while the pages were read) counts once, last. */
function rulesOf(pages: Uint8Array[]): ListedRuleRow[] {
  const rows: ListedRuleRow[] = [];
  for (const page of pages) rows.push(...(decodePage<{ rules: ListedRuleRow[] }>(page).rules ?? []));
  const last = new Map(rows.map((row, index) => [row.id, index]));
  return rows.filter((row, index) => last.get(row.id) === index);
}

/**
 * Runs compiles, keeping each workspace's translations by rule type and pairs from its last compile:
 * a change of one rule translates that rule again, not the workspace (Chrome's limits, ids and
 * priorities are redone). A workspace's compiles go to the worker that ran its last one, when it is free.
 */
export function createBrowserRulesJobs() {
  const translations = new Map<string, Map<string, RuleTranslation>>();
  let keptTranslations = 0;

  function keepTranslations(workspaceId: string, made: Map<string, RuleTranslation>): void {
    const old = translations.get(workspaceId);
    if (old) {
      keptTranslations -= old.size;
      translations.delete(workspaceId);
    }
    while (keptTranslations + made.size > KEPT_TRANSLATIONS && translations.size > 0) {
      const [oldest, entries] = translations.entries().next().value as [string, Map<string, RuleTranslation>];
      keptTranslations -= entries.size;
      translations.delete(oldest);
    }
    if (made.size <= KEPT_TRANSLATIONS) {
      translations.set(workspaceId, made);
      keptTranslations += made.size;
    }
  }

  return function run({ workspaceId, pages, values: sent }: BrowserRulesJob): BrowserRulesOutcome {
    const values = new Map(sent ?? []);
    const before = translations.get(workspaceId);
    const made = new Map<string, RuleTranslation>();
    const compiler = createBrowserRuleCompiler();
    for (const row of rulesOf(pages)) {
      // Active rules whose group is not Inactive, as the engine takes them.
      if (row.status !== 'Active' || row.groupStatus === 'Inactive') continue;
      const { removeCSPHeader } = row;
      const written = {
        id: row.id,
        ruleType: row.ruleType,
        pairs: JSON.parse(row.pairs),
        ...(removeCSPHeader === undefined ? {} : { removeCSPHeader }),
      };
      // Resolved in the environment: a rule its variables make invalid there is reported, not written.
      const { rule, used, problems } = resolveInEnvironment(written, values, checkResolvedPairs);
      if (problems.length > 0) {
        compiler.add({ ...rule, environmentProblems: problems });
        continue;
      }
      // A translation depends on the type and pairs (as resolved), and a Script's on its removeCSPHeader too.
      const pairs = used.length > 0 ? JSON.stringify(rule.pairs) : row.pairs;
      const key = `${row.ruleType}${removeCSPHeader === false ? '-csp' : ''}\n${pairs}`;
      const translation = compiler.add(rule, before?.get(key) ?? made.get(key));
      if (translation) made.set(key, translation);
    }
    keepTranslations(workspaceId, made);
    return { json: encoder.encode(JSON.stringify({ success: true, data: compiler.finish() })) };
  };
}
