// GET /v1/browser-rules: the workspace's active rules compiled to Chrome's declarativeNetRequest rules,
// built once per revision and kept (as JSON text) until the workspace changes. The compiling runs in
// slices, so a workspace of 100,000 rules does not hold up everyone else's requests.
import { createBrowserRuleCompiler, type RuleTranslation } from '../../engine/dnr/index.js';
import type { Principal } from '../../model/principal.js';
import type { ChangesService } from '../changes/changes-service.js';
import { createReadCache } from '../shared/read-cache.js';
import type { BrowserRulesStore } from './browser-rules-store.js';

/** Memory the kept answers may hold: a 30,000-rule answer is a few megabytes. */
const KEPT_BYTES = 64 * 1024 * 1024;

/**
 * Rules' translations kept from the last build of each workspace, all workspaces together (a few
 * hundred bytes each; a workspace past Chrome's 30,000 rules has no more translated than that).
 */
const KEPT_TRANSLATIONS = 100_000;
/** Milliseconds of work between two turns of the event loop. */
const SLICE_MS = 8;

/** A pause for everyone else's work once a slice's time is spent. */
function slicer(): () => Promise<void> | undefined {
  let since = performance.now();
  return () => {
    if (performance.now() - since < SLICE_MS) return undefined;
    return new Promise<void>((resolve) =>
      setImmediate(() => {
        since = performance.now();
        resolve();
      }),
    );
  };
}

/** The items as the text of a JSON array's elements, written a slice at a time. */
async function jsonList(items: readonly unknown[], pause: () => Promise<void> | undefined): Promise<string> {
  const parts: string[] = [];
  for (const item of items) {
    await pause();
    parts.push(JSON.stringify(item));
  }
  return parts.join(',');
}

export function createBrowserRulesService(deps: {
  store: BrowserRulesStore;
  changes: Pick<ChangesService, 'revision'>;
}) {
  const { store, changes } = deps;
  const kept = createReadCache<string>(KEPT_BYTES, (json) => 2 * json.length);
  const building = new Map<string, Promise<string>>();

  /**
   * Translations by rule type and pairs, per workspace, from its last build: a change of one rule
   * translates that rule again, not the workspace (Chrome's limits, ids and priorities are redone).
   */
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

  /** The answer's JSON text, from the rules as they are now. */
  async function build(workspaceId: string): Promise<string> {
    const rows = await store.activeRules(workspaceId);
    const before = translations.get(workspaceId);
    const made = new Map<string, RuleTranslation>();
    const compiler = createBrowserRuleCompiler();
    // Everyone else's work runs between slices. Not abandoned with one client: the build is shared.
    const pause = slicer();
    for (const row of rows) {
      await pause();
      if (row.groupStatus === 'Inactive') continue;
      const rule = { id: row.id, ruleType: row.ruleType, pairs: JSON.parse(row.pairs) };
      const key = `${row.ruleType}\n${row.pairs}`;
      const translation = compiler.add(rule, before?.get(key) ?? made.get(key));
      if (translation) made.set(key, translation);
    }
    keepTranslations(workspaceId, made);
    const { rules, report } = compiler.finish();
    // Written a slice at a time too: 100,000 rules' report is megabytes of text.
    let json = '{"success":true,"data":{"rules":[';
    json += await jsonList(rules, pause);
    json += '],"report":[';
    json += await jsonList(report, pause);
    return `${json}]}}`;
  }

  /**
   * One build per workspace and revision: clients that ask together share it (a build begun at an
   * older revision may have read older rules, so it is never shared with a newer one).
   */
  function shared(workspaceId: string, revision: number): Promise<string> {
    const key = `${workspaceId}@${revision}`;
    const running = building.get(key);
    if (running) return running;
    const made = build(workspaceId).finally(() => building.delete(key));
    building.set(key, made);
    return made;
  }

  return {
    /** The answer of GET /v1/browser-rules as JSON text. */
    async browserRules(principal: Principal): Promise<string> {
      const revision = await changes.revision(principal.workspaceId);
      const json = await kept.read(principal.workspaceId, revision, () =>
        shared(principal.workspaceId, revision),
      );
      return json as string;
    },
  };
}

export type BrowserRulesService = ReturnType<typeof createBrowserRulesService>;
