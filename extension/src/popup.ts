// The popup: the worker's state (a refused key in words), and the rules that acted on the current
// tab, each with the server's trace of the request it acted on (where Chrome said which request).
import { explain, type RuleExplanation, ServerError } from './api.js';
import type { PopupQuestion } from './content/messages.js';
import {
  type ActedRule,
  loadSettings,
  loadStatus,
  loadTab,
  onStatusChanged,
  type Status,
} from './settings.js';
import { describeError, describeState } from './status-text.js';

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const state = byId<HTMLElement>('state');
const error = byId<HTMLElement>('error');
const list = byId<HTMLUListElement>('acted');
const empty = byId<HTMLElement>('empty');

function show(status: Status): void {
  state.textContent = describeState(status);
  error.textContent = describeError(status);
}

/** The tab the popup is about: the active one, or `?tab=ID` (a popup opened in a tab of its own). */
async function tabId(): Promise<number | undefined> {
  const asked = Number(new URLSearchParams(location.search).get('tab'));
  if (Number.isInteger(asked) && asked > 0) return asked;
  const [active] = await chrome.tabs.query({ active: true, currentWindow: true });
  return active?.id;
}

function element<K extends keyof HTMLElementTagNameMap>(tag: K, text: string, className?: string) {
  const node = document.createElement(tag);
  node.textContent = text;
  if (className) node.className = className;
  return node;
}

/** The trace's words: why the rule acted, and each check of the pair that matched. */
function explanationOf(verdict: RuleExplanation | undefined): HTMLElement {
  const checks = document.createElement('ul');
  checks.className = 'checks';
  if (!verdict) {
    checks.append(element('li', 'The rule is no longer in the workspace.'));
    return checks;
  }
  checks.append(element('li', verdict.acted ? 'acted' : `did not act now: ${verdict.reason}`));
  const pair = verdict.pairs.find((candidate) => candidate.matched) ?? verdict.pairs[0];
  for (const check of pair?.checks ?? [])
    checks.append(element('li', check.detail, check.passed ? undefined : 'failed'));
  return checks;
}

async function showRule(rule: ActedRule): Promise<void> {
  const item = document.createElement('li');
  item.append(element('strong', rule.name), document.createTextNode(` ${rule.ruleType} `));
  const { request } = rule;
  if (!request) {
    // A packed install: Chrome says which of its rules matched on the tab, not on which request.
    item.append(element('div', 'acted on a request of this page (Chrome does not say which)', 'request'));
    list.append(item);
    return;
  }
  item.append(element('div', `${request.method} ${request.url}`, 'request'));
  list.append(item);
  const settings = await loadSettings();
  if (!settings) return;
  try {
    item.append(explanationOf(await explain(settings, request, rule.ruleId)));
  } catch (problem) {
    const message = problem instanceof ServerError ? problem.message : String(problem);
    item.append(element('div', `No trace: ${message}`, 'error'));
    if (problem instanceof ServerError && problem.refused) error.textContent = message;
  }
}

async function main(): Promise<void> {
  show(await loadStatus());
  onStatusChanged(show);
  const id = await tabId();
  if (id === undefined) return;
  // Where Chrome tells matches only when asked (a packed install), asked first; else answered at once.
  const question: PopupQuestion = { kind: 'matched' };
  await chrome.runtime.sendMessage(question).catch(() => undefined);
  const acted = Object.values((await loadTab(id)).acted);
  empty.hidden = acted.length > 0;
  await Promise.all(acted.map(showRule));
}

void main();
