// The rules that acted in this browser, told to the server as `extension` hits (decision 21): rule ids
// and counts only, never a URL, at most every 10 s (rulekeeper/runtime's reporter). On by default; the
// options page turns it off (chrome.storage.local `reportHits`). Counts wait in the worker's memory:
// Chrome keeps a worker some 30 s after its last event, past the 10 s a batch waits, and a worker
// ended sooner loses at most that batch's counts.
import { createHitReporter, type HitReporter } from '../../src/runtime/index.js';
import type { Settings } from './settings.js';

const REPORT_HITS = 'reportHits';
/** A shorter batch interval, in ms (from 100 to 10,000): for tests, which flush instead of waiting. */
const INTERVAL = 'hitsIntervalMs';

export async function loadReportHits(): Promise<boolean> {
  return (await chrome.storage.local.get(REPORT_HITS))[REPORT_HITS] !== false;
}

export async function saveReportHits(on: boolean): Promise<void> {
  await chrome.storage.local.set({ [REPORT_HITS]: on });
}

/** Called when the option changes, in any page of the extension or in the worker. */
export function onReportHitsChanged(listener: () => void): void {
  chrome.storage.onChanged.addListener((changes, area) => {
    if (area === 'local' && (REPORT_HITS in changes || INTERVAL in changes)) listener();
  });
}

/** The reporter for `settings`, or none when the person turned reporting off. */
export async function startHits(settings: Settings): Promise<HitReporter | undefined> {
  if (!(await loadReportHits())) return undefined;
  const stored = Number((await chrome.storage.local.get(INTERVAL))[INTERVAL]);
  const intervalMs = Number.isInteger(stored) && stored >= 100 && stored <= 10_000 ? stored : undefined;
  return createHitReporter({
    server: settings.serverUrl,
    key: settings.key,
    source: 'extension',
    ...(intervalMs ? { intervalMs } : {}),
    log: (message) => console.warn(`Rulekeeper: ${message}`),
  });
}
