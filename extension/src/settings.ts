// What the extension keeps: the server and key the person signed in with (chrome.storage.local, so
// they survive restarts; the key is never logged or shown again), the worker's state for the popup and
// options page, and what acted on each tab (chrome.storage.session: gone when the browser closes).

export interface Settings {
  /** e.g. http://127.0.0.1:8080, without a trailing slash. */
  serverUrl: string;
  key: string;
  /**
   * The environment whose variables' values the rules act with (`{{API}}`), chosen on the options
   * page; absent: the key's own (the one it is bound to, else `default`).
   */
  environment?: string;
}

export interface Identity {
  workspace: string;
  user: string;
  scope: string;
  keyName?: string;
  expiresAt?: number | null;
  /** The environment the key is bound to (null: none, so `default`); absent from a server without environments. */
  environment?: string | null;
}

/** The worker's state, as the popup and options page show it. */
export interface Status {
  state: 'signed_out' | 'connecting' | 'following' | 'unreachable' | 'refused';
  /** What went wrong, as the server said it (`Invalid API key: expired at …`). */
  error?: string;
  identity?: Identity;
  /** The environment the rules act in, once the worker follows (absent from a server without environments). */
  environment?: string;
  /** Dynamic rules installed from the last compile, and the report of rules that did not compile whole. */
  installed?: number;
  notInstalled?: { ruleId: string; status: string; reasons: string[] }[];
  /** Why the compiled rules could not be installed, when they could not. */
  installError?: string;
  updatedAt: number;
}

/**
 * A rule that acted on a tab, and one request it acted on (what the popup traces); no request when
 * Chrome said which rule but not on which request (getMatchedRules, in a packed install).
 */
export interface ActedRule {
  ruleId: string;
  name: string;
  ruleType: string;
  request?: { url: string; method: string; resourceType?: string; pageUrl?: string };
}

export interface TabRecord {
  /** The page these rules acted on (its top frame's URL when last navigated). */
  url?: string;
  /** When that navigation began (milliseconds since the epoch). */
  since?: number;
  acted: Record<string, ActedRule>;
}

const SETTINGS = 'settings';
const STATUS = 'status';
export const tabKey = (tabId: number) => `tab:${tabId}`;

export async function loadSettings(): Promise<Settings | undefined> {
  const stored = (await chrome.storage.local.get(SETTINGS))[SETTINGS] as Settings | undefined;
  return stored?.serverUrl && stored.key ? stored : undefined;
}

export async function saveSettings(settings: Settings | undefined): Promise<void> {
  if (settings) await chrome.storage.local.set({ [SETTINGS]: settings });
  else await chrome.storage.local.remove(SETTINGS);
}

/** Called when the settings change, in any page of the extension or in the worker. */
export function onSettingsChanged(listener: () => void): void {
  chrome.storage.onChanged.addListener((changes, area) => {
    if (area === 'local' && SETTINGS in changes) listener();
  });
}

export async function loadStatus(): Promise<Status> {
  const stored = (await chrome.storage.session.get(STATUS))[STATUS] as Status | undefined;
  return stored ?? { state: 'signed_out', updatedAt: 0 };
}

export async function saveStatus(status: Omit<Status, 'updatedAt'>): Promise<void> {
  await chrome.storage.session.set({ [STATUS]: { ...status, updatedAt: Date.now() } });
}

export function onStatusChanged(listener: (status: Status) => void): void {
  chrome.storage.onChanged.addListener((changes, area) => {
    const change = changes[STATUS];
    if (area === 'session' && change?.newValue) listener(change.newValue as Status);
  });
}

export async function loadTab(tabId: number): Promise<TabRecord> {
  const stored = (await chrome.storage.session.get(tabKey(tabId)))[tabKey(tabId)] as TabRecord | undefined;
  return stored ?? { acted: {} };
}

/** A server URL as typed (`127.0.0.1:8080/`, `https://rules.example.com`) made canonical, or undefined. */
export function normaliseServerUrl(text: string): string | undefined {
  const trimmed = text.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `http://${trimmed}`;
  try {
    const url = new URL(withScheme);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
  } catch {
    return undefined;
  }
}
