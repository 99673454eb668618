// The console: the sign-in page, or the screens of a signed-in workspace with their navigation and
// the live change stream that keeps them current.
import { useCallback, useMemo, useState } from 'preact/hooks';
import { clientFor, forgetKey, savedKey, saveKey } from './api.js';
import { GroupsPage } from './groups/groups-page.js';
import { type LiveState, useLiveChanges } from './live.js';
import { LiveContext } from './live-context.js';
import { hrefFor, type Route, useRoute } from './route.js';
import { DeletedPage } from './rules/deleted-page.js';
import { RuleEditor } from './rules/rule-editor.js';
import { RulesPage } from './rules/rules-page.js';
import { REVOKED_MESSAGE, type Session, SessionContext } from './session.js';
import { SignIn } from './sign-in.js';
import { TemplatesPage } from './templates/templates-page.js';
import { TryItPage } from './trace/try-it-page.js';
import { MovePage } from './transfer/move-page.js';
import { ShortcutsDialog, useShortcuts } from './ui/shortcuts.js';

export function App() {
  const [key, setKey] = useState(savedKey);
  const [message, setMessage] = useState<string | null>(null);
  const session = useMemo<Session | null>(
    () =>
      key
        ? {
            client: clientFor(key),
            signOut: (reason) => {
              forgetKey();
              setKey(null);
              setMessage(reason ?? 'Signed out. The key is no longer kept in this browser.');
            },
          }
        : null,
    [key],
  );
  if (!session) {
    return (
      <SignIn
        message={message}
        onSignIn={(newKey) => {
          saveKey(newKey);
          setMessage(null);
          setKey(newKey);
        }}
      />
    );
  }
  return (
    <SessionContext.Provider value={session}>
      <Workspace apiKey={key as string} onSignOut={(reason) => session.signOut(reason)} />
    </SessionContext.Provider>
  );
}

const NAV: { route: Route; label: string }[] = [
  { route: { page: 'rules' }, label: 'Rules' },
  { route: { page: 'groups' }, label: 'Groups' },
  { route: { page: 'templates' }, label: 'Templates' },
  { route: { page: 'try' }, label: 'Try it' },
  { route: { page: 'move' }, label: 'Import & export' },
];

const LIVE_LABELS: Record<LiveState, string> = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
  stopped: 'Not following',
};

function Workspace({ apiKey, onSignOut }: { apiKey: string; onSignOut: (reason?: string) => void }) {
  const route = useRoute();
  const [changes, setChanges] = useState(0);
  const live = useLiveChanges(
    apiKey,
    () => setChanges((count) => count + 1),
    () => onSignOut(REVOKED_MESSAGE),
  );
  const current = route.page === 'rule' || route.page === 'deleted' ? 'rules' : route.page;
  const [shortcuts, setShortcuts] = useState(false);
  useShortcuts(useCallback(() => setShortcuts(true), []));
  return (
    <LiveContext.Provider value={changes}>
      {/* Not href="#main": the part after # is the console's route. */}
      <button type="button" class="skip" onClick={() => document.getElementById('main')?.focus()}>
        Skip to content
      </button>
      <header class="top">
        <span class="brand">Rulekeeper</span>
        <nav aria-label="Console">
          <ul>
            {NAV.map(({ route: target, label }) => (
              <li key={label}>
                <a href={hrefFor(target)} aria-current={current === target.page ? 'page' : undefined}>
                  {label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <span class={`live ${live}`} role="status" title="Changes made elsewhere show up here as they happen">
          {LIVE_LABELS[live]}
        </span>
        <button
          type="button"
          class="secondary small"
          aria-keyshortcuts="?"
          onClick={() => setShortcuts(true)}
        >
          Shortcuts <kbd>?</kbd>
        </button>
        <button type="button" class="secondary small" onClick={() => onSignOut()}>
          Sign out
        </button>
      </header>
      <main id="main" tabIndex={-1}>
        {route.page === 'rules' ? <RulesPage /> : null}
        {route.page === 'rule' ? (
          <RuleEditor
            key={route.ruleId ?? `new ${route.template ?? ''}`}
            ruleId={route.ruleId}
            template={route.template}
          />
        ) : null}
        {route.page === 'templates' ? <TemplatesPage /> : null}
        {route.page === 'deleted' ? <DeletedPage /> : null}
        {route.page === 'groups' ? <GroupsPage /> : null}
        {route.page === 'try' ? <TryItPage /> : null}
        {route.page === 'move' ? <MovePage /> : null}
      </main>
      {shortcuts ? <ShortcutsDialog onClose={() => setShortcuts(false)} /> : null}
    </LiveContext.Provider>
  );
}
