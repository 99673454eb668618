// Installs the workspace's compiled rules as the extension's dynamic rules. Each install replaces
// every previous dynamic rule in one updateDynamicRules call, which Chrome applies atomically: a page
// never sees half of one compile and half of another. Installs run one at a time; a change that
// arrives during one makes one more run after it (however many arrived), so the last change is
// always installed.
import { type BrowserRules, browserRules } from './api.js';
import type { Settings } from './settings.js';

const ETAG = 'browserRulesEtag';
/** Which workspace rule each installed browser rule was written for (the compiler's report says it). */
const OWNERS = 'browserRuleOwners';

export interface Installed {
  installed: number;
  notInstalled: BrowserRules['report'];
}

/** Whose compiled rules an ETag is of: the server and the environment (the ETag is per environment). */
const etagFor = (settings: Settings) => `${settings.serverUrl} ${settings.environment ?? ''}`;

/** The ETag of what is installed, for this server and environment only (another sign-in reads again). */
async function storedEtag(settings: Settings): Promise<string | undefined> {
  const stored = (await chrome.storage.local.get(ETAG))[ETAG] as { for: string; etag: string } | undefined;
  return stored?.for === etagFor(settings) ? stored.etag : undefined;
}

/** Replaces all dynamic rules with `rules` (none: removes them all), in one call. */
export async function replaceDynamicRules(rules: chrome.declarativeNetRequest.Rule[]): Promise<void> {
  const previous = await chrome.declarativeNetRequest.getDynamicRules();
  await chrome.declarativeNetRequest.updateDynamicRules({
    removeRuleIds: previous.map((rule) => rule.id),
    addRules: rules,
  });
}

/** Forgets what was installed: the next install reads the compiled rules whole. */
export async function clearDynamicRules(): Promise<void> {
  await chrome.storage.local.remove([ETAG, OWNERS]);
  await replaceDynamicRules([]);
}

/** Which workspace rule each installed browser rule was written for, as the compiler said. */
export async function loadOwners(): Promise<Record<number, string>> {
  return ((await chrome.storage.local.get(OWNERS))[OWNERS] as Record<number, string> | undefined) ?? {};
}

/** The workspace rule an installed browser rule was written for, when the compiler said. */
export async function ownerOf(browserRuleId: number): Promise<string | undefined> {
  return (await loadOwners())[browserRuleId];
}

/** Reads the compiled rules (a 304 when nothing changed) and installs them when they changed. */
async function installOnce(settings: Settings): Promise<Installed | 'unchanged'> {
  const answer = await browserRules(settings, await storedEtag(settings));
  if (answer === 'unchanged') return 'unchanged';
  await replaceDynamicRules(answer.rules.rules);
  const owners: Record<number, string> = {};
  for (const entry of answer.rules.report)
    for (const pair of entry.pairs ?? [])
      for (const id of pair.browserRuleIds ?? []) owners[id] = entry.ruleId;
  await chrome.storage.local.set({ [OWNERS]: owners });
  if (answer.etag) await chrome.storage.local.set({ [ETAG]: { for: etagFor(settings), etag: answer.etag } });
  else await chrome.storage.local.remove(ETAG);
  return {
    installed: answer.rules.rules.length,
    notInstalled: answer.rules.report.filter((entry) => entry.status !== 'compiled'),
  };
}

/** A serial installer: `request()` asks for an install and settles once one that started after it ended. */
export function createInstaller(
  settings: Settings,
  report: (result: Installed | 'unchanged' | Error) => void,
): { request(): Promise<void> } {
  let running: Promise<void> | undefined;
  let again = false;
  const run = async (): Promise<void> => {
    do {
      again = false;
      try {
        report(await installOnce(settings));
      } catch (error) {
        report(error as Error);
      }
    } while (again);
    running = undefined;
  };
  return {
    request() {
      if (running) {
        again = true;
        return running;
      }
      running = run();
      return running;
    },
  };
}
