// The service worker: follows the signed-in workspace, installs its compiled rules as dynamic rules on
// every change, answers the content scripts (Script and Response rules), and counts the rules that
// acted on each tab. Chrome ends an idle worker; every wake (an alarm every 30 s, a message, a page
// load) starts it again from the stored settings, and the first install after a wake costs a 304.
import { RESOURCE_TYPES, type ResourceType } from '../../src/model/resource-types.js';
import type { HitReporter } from '../../src/runtime/index.js';
import { ServerError, whoami } from './api.js';
import type { ContentQuestion, DocumentAnswer, PopupQuestion, ResponseAnswer } from './content/messages.js';
import { clearDynamicRules, createInstaller, type Installed, loadOwners, ownerOf } from './dynamic-rules.js';
import { onReportHitsChanged, startHits } from './hits.js';
import { createMatchedRulesReader, type TabMatch } from './matched-rules.js';
import {
  type ActedRule,
  loadSettings,
  loadStatus,
  onSettingsChanged,
  type Settings,
  type Status,
  saveStatus,
} from './settings.js';
import { forgetTab, recordActed, showAgain, startPage } from './tab-activity.js';
import { followWorkspace, type WorkspaceFeed } from './workspace-feed.js';

const ENGINE_TYPES = new Set<string>(RESOURCE_TYPES);
/** Chrome's resource type as the engine names it; Chrome's others (`ping`, `other`, …) are unknown to it. */
const engineType = (type: string) => (ENGINE_TYPES.has(type) ? (type as ResourceType) : undefined);

interface Session {
  settings: Settings;
  feed: WorkspaceFeed;
  status: Omit<Status, 'updatedAt'>;
  /** Tells the server which rules acted here (hits.ts); none when turned off. */
  hits: HitReporter | undefined;
}

let session: Session | undefined;
let starting: Promise<Session | undefined> | undefined;

async function publish(current: Session, change: Partial<Status>): Promise<void> {
  current.status = { ...current.status, ...change };
  if (session === current) await saveStatus(current.status);
}

/** Asks the server who the key is; a refused key stops nothing but is shown, and clears the rules. */
async function checkKey(current: Session): Promise<void> {
  try {
    const identity = await whoami(current.settings);
    await publish(current, { identity, error: undefined });
  } catch (error) {
    if (!(error instanceof ServerError)) throw error;
    if (error.refused) {
      // A revoked or expired key: what it installed is no longer the workspace's to say; removed.
      await publish(current, { state: 'refused', error: error.message, installed: 0, notInstalled: [] });
      await clearDynamicRules();
    } else await publish(current, { state: 'unreachable', error: error.message });
  }
}

function reportInstall(current: Session, result: Installed | 'unchanged' | Error): void {
  if (result === 'unchanged') return;
  if (result instanceof ServerError) {
    if (result.refused) void checkKey(current);
    else void publish(current, { installError: result.message });
    return;
  }
  if (result instanceof Error) {
    // Chrome refused the rules (a limit, an invalid rule): the previous ones stay in force.
    void publish(current, { installError: `Chrome refused the compiled rules: ${result.message}` });
    return;
  }
  void publish(current, { ...result, installError: undefined });
}

async function start(): Promise<Session | undefined> {
  const settings = await loadSettings();
  if (!settings) {
    await saveStatus({ state: 'signed_out' });
    return undefined;
  }
  const feed = followWorkspace(settings);
  const previous = await loadStatus();
  const current: Session = {
    settings,
    feed,
    status: { ...previous, state: 'connecting', error: undefined },
    hits: await startHits(settings),
  };
  session = current;
  await saveStatus(current.status);
  const installer = createInstaller(settings, (result) => reportInstall(current, result));
  // Installed at once: the compiled rules need neither the copy nor the stream, and after another
  // environment was chosen the page loads would otherwise go without rules until the runtime is live.
  void installer.request();
  feed.onChange(() => {
    void installer.request();
  });
  feed.onState((state) => {
    if (state.connected) {
      void publish(current, { state: 'following', error: undefined, environment: state.environment });
      void checkKey(current);
      void installer.request();
    } else void checkKey(current);
  });
  void checkKey(current);
  return current;
}

/** The session for the stored settings, started once however many events wake the worker together. */
function ensureSession(): Promise<Session | undefined> {
  if (session) return Promise.resolve(session);
  starting ??= start().finally(() => {
    starting = undefined;
  });
  return starting;
}

onSettingsChanged(() => {
  session?.feed.stop();
  void session?.hits?.close();
  session = undefined;
  // Another server or key: nothing installed for the last one may stay, nor its ETag.
  void clearDynamicRules().then(ensureSession);
});

// Chrome's own rules acting: each browser rule is the workspace rule the compiler's report says it was
// written for (what Chrome did, even where it and the engine would differ). Unpacked, Chrome tells each
// match as it happens, with its request (onRuleMatchedDebug); packed, it has no such event, and
// getMatchedRules says which rules matched on each tab, and when, a page load at a time.
const debugMatches = chrome.declarativeNetRequest.onRuleMatchedDebug as
  | typeof chrome.declarativeNetRequest.onRuleMatchedDebug
  | undefined;

const matchedRules = debugMatches ? undefined : createMatchedRulesReader(recordMatches);

// Reporting turned on or off: counted from now on, or what was counted sent and no more.
onReportHitsChanged(() => {
  const current = session;
  if (!current) return;
  void current.hits?.close();
  current.hits = undefined;
  void startHits(current.settings).then((hits) => {
    if (session === current) current.hits = hits;
    else void hits?.close();
  });
});

/** Counts `ruleIds` as having acted once each (at `at`), for the server's hits. */
function countHits(current: Session, ruleIds: string[], at?: number): void {
  if (ruleIds.length > 0) current.hits?.acted(ruleIds, at);
}

chrome.alarms.create('wake', { periodInMinutes: 0.5 });
chrome.alarms.onAlarm.addListener(() => {
  void ensureSession();
  void matchedRules?.followUp();
});
chrome.runtime.onStartup.addListener(() => {
  void ensureSession();
});
chrome.runtime.onInstalled.addListener(() => {
  void ensureSession();
});
void ensureSession();

function actedRules(current: Session, ruleIds: string[], request?: ActedRule['request']): ActedRule[] {
  return ruleIds.map((ruleId) => {
    const described = current.feed.describe(ruleId);
    return {
      ruleId,
      name: described?.name ?? ruleId,
      ruleType: described?.ruleType ?? '',
      ...(request ? { request } : {}),
    };
  });
}

/** The Script rules that act on the sender's document. */
async function documentAnswer(sender: chrome.runtime.MessageSender): Promise<DocumentAnswer> {
  const current = await ensureSession();
  const tabId = sender.tab?.id;
  if (!current || !sender.url || tabId === undefined) return { scripts: [] };
  const top = sender.frameId === 0;
  const request = {
    url: sender.url,
    method: 'GET',
    resourceType: top ? ('main_frame' as const) : ('sub_frame' as const),
    pageUrl: top ? sender.url : sender.tab?.url,
  };
  const result = await current.feed.evaluate(request);
  if (!result || result.outcome.cancelled) return { scripts: [] };
  const scripts = result.outcome.scripts;
  const ruleIds = [...new Set(scripts.map((script) => script.ruleId))];
  countHits(current, ruleIds);
  void recordActed(tabId, actedRules(current, ruleIds, request));
  return { scripts };
}

/** The static response a Response rule serves for a fetch or XHR of the sender's page. */
async function responseAnswer(
  sender: chrome.runtime.MessageSender,
  url: string,
  method: string,
): Promise<ResponseAnswer> {
  const current = await ensureSession();
  const tabId = sender.tab?.id;
  if (!current || tabId === undefined) return { response: null };
  const request = { url, method, resourceType: 'xmlhttprequest' as const, pageUrl: sender.url };
  const result = await current.feed.evaluate(request);
  // A `code` response is a function the extension never runs; a cancelled request is Chrome's to block.
  if (!result || result.outcome.cancelled) return { response: null };
  const effect = result.outcome.response;
  if (effect?.type !== 'static') return { response: null };
  countHits(current, [effect.ruleId]);
  void recordActed(tabId, actedRules(current, [effect.ruleId], request));
  const { ruleId, value, statusCode, statusText, serveWithoutRequest } = effect;
  return { response: { ruleId, value, statusCode, statusText, serveWithoutRequest } };
}

chrome.runtime.onMessage.addListener((message: ContentQuestion | PopupQuestion, sender, reply) => {
  if (sender.id !== chrome.runtime.id) return false;
  // The popup, opening: what Chrome's rules did to its tab, read first where only getMatchedRules tells.
  if (message.kind === 'matched' && sender.url?.startsWith(chrome.runtime.getURL(''))) {
    (matchedRules?.ask() ?? Promise.resolve()).then(
      () => reply(true),
      () => reply(false),
    );
    return true;
  }
  // Otherwise only this extension's content scripts (in a tab) ask; anything else is not a question.
  if (!sender.tab) return false;
  const answer =
    message.kind === 'document'
      ? documentAnswer(sender)
      : message.kind === 'response' && typeof message.url === 'string' && typeof message.method === 'string'
        ? responseAnswer(sender, message.url, message.method)
        : undefined;
  if (!answer) return false;
  answer.then(reply, () => reply(undefined));
  return true;
});

// Unpacked: each match as it happens, with its request.
debugMatches?.addListener(({ request, rule }) => {
  if (request.tabId < 0 || rule.rulesetId !== chrome.declarativeNetRequest.DYNAMIC_RULESET_ID) return;
  void ensureSession().then(async (current) => {
    const ruleId = await ownerOf(rule.ruleId);
    if (!current || !ruleId) return;
    // A Script rule's browser rule (the page's policy removed) is counted with its script, once.
    if (current.feed.describe(ruleId)?.ruleType !== 'Script') countHits(current, [ruleId]);
    const described = {
      url: request.url,
      method: request.method.toUpperCase(),
      resourceType: engineType(request.type),
      pageUrl: request.initiator,
    };
    await recordActed(request.tabId, actedRules(current, [ruleId], described));
  });
});

/** Packed: what getMatchedRules said, each workspace rule once per tab, at its latest match. */
async function recordMatches(matches: TabMatch[]): Promise<void> {
  const current = await ensureSession();
  if (!current) return;
  const owners = await loadOwners();
  const latest = new Map<string, { tabId: number; ruleId: string; at: number }>();
  // Each match is one hit, once: calls overlap by a second, and a match seen before is not counted again.
  const countedTo = await hitsCountedTo(Math.max(...matches.map((match) => match.at)));
  for (const { tabId, browserRuleId, at } of matches) {
    const ruleId = owners[browserRuleId];
    if (ruleId && at > countedTo && current.feed.describe(ruleId)?.ruleType !== 'Script')
      countHits(current, [ruleId], at);
    const key = `${tabId} ${ruleId}`;
    if (ruleId && at > (latest.get(key)?.at ?? -1)) latest.set(key, { tabId, ruleId, at });
  }
  for (const { tabId, ruleId, at } of latest.values())
    await recordActed(tabId, actedRules(current, [ruleId]), at);
}

/** The time matches were counted up to (kept for the browser's session), moved on to `to`. */
async function hitsCountedTo(to: number): Promise<number> {
  const KEY = 'hitsCountedTo';
  const before = Number((await chrome.storage.session.get(KEY))[KEY] ?? 0);
  await chrome.storage.session.set({ [KEY]: Math.max(before, to) });
  return before;
}

chrome.webNavigation.onBeforeNavigate.addListener(({ tabId, frameId, url, timeStamp }) => {
  if (frameId === 0) void startPage(tabId, url, timeStamp);
});
// A page loaded, or its load failed (a Cancel of the page itself): what Chrome's rules did, read.
chrome.webNavigation.onCompleted.addListener(({ frameId }) => {
  if (frameId === 0) void matchedRules?.ask();
});
chrome.webNavigation.onErrorOccurred.addListener(({ frameId }) => {
  if (frameId === 0) void matchedRules?.ask();
});
chrome.webNavigation.onCommitted.addListener(({ tabId, frameId }) => {
  if (frameId === 0) void showAgain(tabId);
});
chrome.tabs.onRemoved.addListener((tabId) => {
  void forgetTab(tabId);
});
