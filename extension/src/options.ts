// The options page: the server URL and key to sign in with, and the environment the rules act in. The
// key is checked with the server before it is kept, kept only in chrome.storage.local, and never shown
// again.
import { environments, ServerError, whoami } from './api.js';
import { loadReportHits, saveReportHits } from './hits.js';
import {
  loadSettings,
  loadStatus,
  normaliseServerUrl,
  onStatusChanged,
  type Settings,
  type Status,
  saveSettings,
} from './settings.js';
import { describeError, describeState } from './status-text.js';

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const form = byId<HTMLFormElement>('sign-in');
const server = byId<HTMLInputElement>('server');
const key = byId<HTMLInputElement>('key');
const signedIn = byId<HTMLElement>('signed-in');
const identity = byId<HTMLElement>('identity');
const state = byId<HTMLElement>('state');
const error = byId<HTMLElement>('error');
const notInstalled = byId<HTMLElement>('not-installed');
const notInstalledList = byId<HTMLUListElement>('not-installed-list');
const reportHits = byId<HTMLInputElement>('report-hits');
const environment = byId<HTMLSelectElement>('environment');

/** The compiler's report of each rule it could not compile whole, with its reasons. */
function showReport(report: NonNullable<Status['notInstalled']>): void {
  notInstalled.hidden = report.length === 0;
  notInstalledList.replaceChildren(
    ...report.map((entry) => {
      const item = document.createElement('li');
      const status = entry.status === 'partial' ? 'partly applied' : 'not applied';
      item.textContent = `${entry.ruleId} (${status}): ${entry.reasons.join('; ')}`;
      return item;
    }),
  );
}

function show(status: Status): void {
  state.textContent = describeState(status);
  error.textContent = describeError(status);
  showReport(status.state === 'following' ? (status.notInstalled ?? []) : []);
  const who = status.identity;
  identity.textContent = who
    ? `Signed in to ${who.workspace} as ${who.user} with a ${who.scope} key${who.keyName ? ` (${who.keyName})` : ''}.` +
      (who.scope === 'read' ? '' : ' This key can change rules: a read key is enough for the extension.')
    : '';
}

/**
 * The workspace's environments to choose from, the chosen one selected: "the key's own" (named once
 * whoami says which it is), then each by name. One chosen that the workspace no longer has stays
 * listed, so that the page shows what the worker acts with.
 */
async function showEnvironments(settings: Settings): Promise<void> {
  let names: string[] = [];
  let own: string | null | undefined;
  try {
    [names, own] = await Promise.all([
      environments(settings),
      whoami(settings).then((who) => who.environment),
    ]);
  } catch {
    // The server away or the key refused: the state line says so; the choice stays as it was.
  }
  const chosen = settings.environment ?? '';
  if (chosen && !names.includes(chosen)) names.push(chosen);
  const keys = document.createElement('option');
  keys.value = '';
  keys.textContent = own === undefined ? "The key's own" : `The key's own (${own ?? 'default'})`;
  environment.replaceChildren(
    keys,
    ...names.map((name) => {
      const option = document.createElement('option');
      option.value = name;
      option.textContent = name;
      return option;
    }),
  );
  environment.value = chosen;
}

async function refresh(): Promise<void> {
  const settings = await loadSettings();
  signedIn.hidden = !settings;
  if (settings) server.value = settings.serverUrl;
  reportHits.checked = await loadReportHits();
  show(await loadStatus());
  if (settings) await showEnvironments(settings);
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  void (async () => {
    error.textContent = '';
    const serverUrl = normaliseServerUrl(server.value);
    if (!serverUrl) {
      error.textContent = 'The server URL must be an http or https address.';
      return;
    }
    const settings = { serverUrl, key: key.value.trim() };
    try {
      await whoami(settings);
    } catch (problem) {
      error.textContent = problem instanceof ServerError ? problem.message : String(problem);
      return;
    }
    key.value = '';
    await saveSettings(settings);
    await refresh();
  })();
});

byId<HTMLButtonElement>('sign-out').addEventListener('click', () => {
  void saveSettings(undefined).then(refresh);
});

// Another environment: the worker follows again with it (settings changed), its rules compiled for it.
environment.addEventListener('change', () => {
  void (async () => {
    const settings = await loadSettings();
    if (!settings) return;
    const { environment: _previous, ...rest } = settings;
    await saveSettings(environment.value ? { ...rest, environment: environment.value } : rest);
  })();
});

reportHits.addEventListener('change', () => {
  void saveReportHits(reportHits.checked);
});

onStatusChanged(show);
void refresh();
