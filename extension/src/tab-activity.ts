// Which rules acted on each tab since its last navigation, and the toolbar badge that counts them.
// Chrome's rules report their matches (onRuleMatchedDebug for an unpacked extension, each with its
// request; getMatchedRules for a packed one, with when but not which request: matched-rules.ts); the
// content scripts report their Script and Response rules. Records live in chrome.storage.session, so
// the popup reads them and a restarted worker keeps them.
import { type ActedRule, loadTab, type TabRecord, tabKey } from './settings.js';

/** One storage write per tab at a time, so that two reports close together never lose one. */
const queues = new Map<number, Promise<void>>();

function update(tabId: number, change: (record: TabRecord) => TabRecord | undefined): Promise<void> {
  const next = (queues.get(tabId) ?? Promise.resolve()).then(async () => {
    const record = change(await loadTab(tabId));
    if (!record) return;
    await chrome.storage.session.set({ [tabKey(tabId)]: record });
    await showCount(tabId, record);
  });
  const settled = next.catch(() => {}); // a closed tab: nothing to show
  queues.set(tabId, settled);
  return settled;
}

async function showCount(tabId: number, record: TabRecord): Promise<void> {
  const count = Object.keys(record.acted).length;
  await chrome.action.setBadgeText({ tabId, text: count > 0 ? String(count) : '' });
}

/**
 * Rules that acted on a request of the tab; `at` (milliseconds since the epoch), when the report came
 * later than the request: rules that acted before the tab's page began are the previous page's.
 */
export function recordActed(tabId: number, rules: ActedRule[], at?: number): Promise<void> {
  if (rules.length === 0) return Promise.resolve();
  return update(tabId, (record) => {
    if (at !== undefined && record.since !== undefined && at < record.since) return undefined;
    // A rule known without its request (getMatchedRules) takes one when a later report names it.
    const fresh = rules.filter(
      (rule) => !record.acted[rule.ruleId]?.request && (rule.request || !record.acted[rule.ruleId]),
    );
    if (fresh.length === 0) return undefined;
    for (const rule of fresh) record.acted[rule.ruleId] = rule;
    return record;
  });
}

/** A new page in the tab, begun at `since` (milliseconds since the epoch): nothing has acted on it yet. */
export function startPage(tabId: number, url: string, since?: number): Promise<void> {
  return update(tabId, () => ({ url, acted: {}, ...(since !== undefined ? { since } : {}) }));
}

/** Chrome clears a tab's badge when its page commits: shown again from the record. */
export async function showAgain(tabId: number): Promise<void> {
  await update(tabId, (record) => record);
}

export async function forgetTab(tabId: number): Promise<void> {
  queues.delete(tabId);
  await chrome.storage.session.remove(tabKey(tabId));
}
