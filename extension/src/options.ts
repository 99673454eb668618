// The options page: the server URL and key to sign in with. The key is checked with the server
// before it is kept, kept only in chrome.storage.local, and never shown again.
import { ServerError, whoami } from './api.js';
import { loadReportHits, saveReportHits } from './hits.js';
import {
  loadSettings,
  loadStatus,
  normaliseServerUrl,
  onStatusChanged,
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

async function refresh(): Promise<void> {
  const settings = await loadSettings();
  signedIn.hidden = !settings;
  if (settings) server.value = settings.serverUrl;
  reportHits.checked = await loadReportHits();
  show(await loadStatus());
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

reportHits.addEventListener('change', () => {
  void saveReportHits(reportHits.checked);
});

onStatusChanged(show);
void refresh();
