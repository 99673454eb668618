// The console: the sign-in page, or the screens of a signed-in workspace with their navigation and
// the live change stream that keeps them current.
import { useCallback, useEffect, useMemo, useState } from 'preact/hooks';
import { ActivityPage } from './activity/activity-page.js';
import { ApiError, anonymousClient, clientFor, forgetKey, savedKey, saveKey, unwrap } from './api.js';
import { ChangeRequestPage } from './change-requests/change-request-page.js';
import { ChangeRequestsPage, useOpenCount } from './change-requests/change-requests-page.js';
import { OperationEditorPage } from './change-requests/operation-editor-page.js';
import { EnvironmentContext } from './environments/environment-context.js';
import { EnvironmentSwitcher } from './environments/environment-switcher.js';
import { EnvironmentsPage } from './environments/environments-page.js';
import { useWorkspaceEnvironments } from './environments/use-workspace-environments.js';
import { GroupsPage } from './groups/groups-page.js';
import { KeysPage } from './keys/keys-page.js';
import { AcceptPage } from './links/accept-page.js';
import { linkPage } from './links/link-token.js';
import { ResetPage } from './links/reset-page.js';
import { type LiveState, useLiveChanges } from './live.js';
import { LiveContext } from './live-context.js';
import { MembersPage } from './members/members-page.js';
import { hrefFor, type Route, useRoute } from './route.js';
import { DeletedPage } from './rules/deleted-page.js';
import { RuleEditor } from './rules/rule-editor.js';
import { RulesPage } from './rules/rules-page.js';
import {
  powers,
  REVOKED_MESSAGE,
  refusedMessage,
  type Session,
  SessionContext,
  type Signed,
} from './session.js';
import { SettingsPage } from './settings/settings-page.js';
import { personFrom, SignIn } from './sign-in.js';
import { TemplatesPage } from './templates/templates-page.js';
import { TestSuitesPage } from './test-suites/test-suites-page.js';
import { TryItPage } from './trace/try-it-page.js';
import { MovePage } from './transfer/move-page.js';
import { ShortcutsDialog, useShortcuts } from './ui/shortcuts.js';
import { WebhooksPage } from './webhooks/webhooks-page.js';

/** The workspace a person chose last in this tab: not a secret, only where they were. */
const WORKSPACE_ITEM = 'rulekeeper.workspace';

/**
 * Who the console speaks for when it opens: the key kept in this tab, or the person whose session
 * cookie the browser holds; null when neither (the sign-in page), with why.
 */
async function whoIsHere(): Promise<{ signed: Signed | null; message: string | null }> {
  const key = savedKey();
  if (key) {
    try {
      const { data } = unwrap(await clientFor({ key }).GET('/v1/whoami'));
      return {
        signed: {
          credentials: { key },
          userId: data.user.id,
          ...(data.key ? { keyId: data.key.id } : {}),
          ...(data.key?.environment ? { keyEnvironment: data.key.environment } : {}),
          name: data.user.name,
          role: data.user.role,
          // Asked with a key, whoami describes it; a session's answer (no key) has its role's reach.
          scope: data.key?.scope ?? 'admin',
          workspaceId: data.workspace.id,
          workspaces: [{ id: data.workspace.id, name: data.workspace.name, role: data.user.role }],
        },
        message: null,
      };
    } catch (error) {
      forgetKey();
      return {
        signed: null,
        message: error instanceof ApiError && error.status === 401 ? REVOKED_MESSAGE : null,
      };
    }
  }
  const answer = await anonymousClient().GET('/v1/session');
  if (!answer.response.ok || !answer.data) return { signed: null, message: null };
  return {
    signed: personFrom(answer.data.data, sessionStorage.getItem(WORKSPACE_ITEM) ?? undefined),
    message: null,
  };
}

export function App() {
  const [signed, setSigned] = useState<Signed | null | 'checking'>('checking');
  const [message, setMessage] = useState<string | null>(null);
  // A single-use link opened (or pasted into this tab): its page comes first, signed in or not.
  const [link, setLink] = useState(() => linkPage(location.hash));
  useEffect(() => {
    const follow = () => setLink(linkPage(location.hash));
    addEventListener('hashchange', follow);
    return () => removeEventListener('hashchange', follow);
  }, []);
  useEffect(() => {
    whoIsHere().then(
      (found) => {
        setSigned(found.signed);
        setMessage(found.message);
      },
      () => setSigned(null),
    );
  }, []);
  const session = useMemo<Session | null>(() => {
    if (signed === null || signed === 'checking') return null;
    const { credentials } = signed;
    const client = clientFor(credentials);
    return {
      ...signed,
      ...powers(signed.role, signed.scope),
      client,
      switchWorkspace: (workspaceId) => {
        const workspace = signed.workspaces.find((w) => w.id === workspaceId);
        if (!workspace || !('session' in credentials)) return;
        sessionStorage.setItem(WORKSPACE_ITEM, workspaceId);
        setSigned({
          ...signed,
          credentials: { session: { ...credentials.session, workspaceId } },
          role: workspace.role,
          workspaceId,
        });
      },
      signOut: (reason) => {
        if ('key' in credentials) forgetKey();
        // Ended on the service too, unless it already was (the reason it signs out).
        else if (!reason) void client.DELETE('/v1/session', { params: { query: {} } }).catch(() => {});
        sessionStorage.removeItem(WORKSPACE_ITEM);
        setSigned(null);
        setMessage(
          reason ??
            ('key' in credentials ? 'Signed out. The key is no longer kept in this browser.' : 'Signed out.'),
        );
      },
    };
  }, [signed]);
  if (link?.page === 'accept')
    return (
      <AcceptPage
        token={link.token}
        onSignIn={(newly) => {
          setLink(null);
          setMessage(null);
          setSigned(newly);
        }}
      />
    );
  if (link?.page === 'reset')
    return (
      <ResetPage
        token={link.token}
        onDone={(done) => {
          setLink(null);
          setSigned(null);
          setMessage(done);
        }}
      />
    );
  if (signed === 'checking') return <p class="loading">Loading…</p>;
  if (!session) {
    return (
      <SignIn
        message={message}
        onSignIn={(newly) => {
          if ('key' in newly.credentials) saveKey(newly.credentials.key);
          setMessage(null);
          setSigned(newly);
        }}
      />
    );
  }
  return (
    <SessionContext.Provider value={session}>
      <Workspace key={session.workspaceId} session={session} />
    </SessionContext.Provider>
  );
}

/** `admin`: shown to those who may change what the page holds (others may still open it). */
const NAV: { route: Route; label: string; admin?: true }[] = [
  { route: { page: 'rules' }, label: 'Rules' },
  { route: { page: 'groups' }, label: 'Groups' },
  { route: { page: 'change-requests' }, label: 'Change requests' },
  { route: { page: 'templates' }, label: 'Templates' },
  { route: { page: 'try' }, label: 'Try it' },
  { route: { page: 'test-suites' }, label: 'Test suites' },
  { route: { page: 'environments' }, label: 'Environments' },
  { route: { page: 'move' }, label: 'Import & export' },
  { route: { page: 'members' }, label: 'Members' },
  { route: { page: 'keys' }, label: 'Keys' },
  { route: { page: 'activity' }, label: 'Activity' },
  { route: { page: 'settings' }, label: 'Settings', admin: true },
  { route: { page: 'webhooks' }, label: 'Webhooks', admin: true },
];

const LIVE_LABELS: Record<LiveState, string> = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
  stopped: 'Not following',
};

function Workspace({ session }: { session: Session }) {
  const route = useRoute();
  const [changes, setChanges] = useState(0);
  const { credentials, signOut } = session;
  const live = useLiveChanges(
    credentials,
    () => setChanges((count) => count + 1),
    () => signOut(refusedMessage(credentials)),
  );
  const current =
    route.page === 'rule' || route.page === 'deleted'
      ? 'rules'
      : route.page === 'change-request' || route.page === 'change-request-operation'
        ? 'change-requests'
        : route.page;
  const open = useOpenCount();
  const environments = useWorkspaceEnvironments(session.workspaceId, changes, session.keyEnvironment);
  const [shortcuts, setShortcuts] = useState(false);
  useShortcuts(
    useCallback(() => setShortcuts(true), []),
    session.canWrite,
  );
  return (
    <LiveContext.Provider value={changes}>
      <EnvironmentContext.Provider value={environments}>
        {/* Not href="#main": the part after # is the console's route. */}
        <button type="button" class="skip" onClick={() => document.getElementById('main')?.focus()}>
          Skip to content
        </button>
        <header class="top">
          <span class="brand">Rulekeeper</span>
          <nav aria-label="Console">
            <ul>
              {NAV.filter((entry) => !entry.admin || session.canAdmin).map(({ route: target, label }) => (
                <li key={label}>
                  <a href={hrefFor(target)} aria-current={current === target.page ? 'page' : undefined}>
                    {label}
                    {target.page === 'change-requests' && open ? (
                      <span class="count-badge">
                        {' '}
                        {open}
                        <span class="visually-hidden"> open</span>
                      </span>
                    ) : null}
                  </a>
                </li>
              ))}
            </ul>
          </nav>
          <EnvironmentSwitcher />
          <span
            class={`live ${live}`}
            role="status"
            title="Changes made elsewhere show up here as they happen"
          >
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
          <WhoIsSignedIn session={session} />
          <button type="button" class="secondary small" onClick={() => signOut()}>
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
          {route.page === 'members' ? <MembersPage /> : null}
          {route.page === 'keys' ? <KeysPage /> : null}
          {route.page === 'activity' ? <ActivityPage /> : null}
          {route.page === 'test-suites' ? <TestSuitesPage /> : null}
          {route.page === 'environments' ? <EnvironmentsPage /> : null}
          {route.page === 'settings' ? <SettingsPage /> : null}
          {route.page === 'change-requests' ? <ChangeRequestsPage /> : null}
          {route.page === 'change-request' ? <ChangeRequestPage key={route.id} id={route.id} /> : null}
          {route.page === 'change-request-operation' ? (
            <OperationEditorPage key={`${route.id} ${route.index}`} id={route.id} index={route.index} />
          ) : null}
          {route.page === 'webhooks' ? <WebhooksPage /> : null}
        </main>
        {shortcuts ? (
          <ShortcutsDialog onClose={() => setShortcuts(false)} canWrite={session.canWrite} />
        ) : null}
      </EnvironmentContext.Provider>
    </LiveContext.Provider>
  );
}

/** The person (or key's user) and their role, and, for a person in several, the workspace switcher. */
function WhoIsSignedIn({ session }: { session: Session }) {
  const here = session.workspaces.find((w) => w.id === session.workspaceId);
  return (
    <span class="who">
      {session.workspaces.length > 1 ? (
        <label>
          <span class="visually-hidden">Workspace</span>
          <select
            value={session.workspaceId}
            onChange={(e) => session.switchWorkspace(e.currentTarget.value)}
          >
            {session.workspaces.map((w) => (
              <option key={w.id} value={w.id}>
                {w.name}
              </option>
            ))}
          </select>
        </label>
      ) : (
        <span class="workspace-name">{here?.name}</span>
      )}{' '}
      <span class="person">
        {session.name} · {session.role}
        {'key' in session.credentials ? ` (${session.scope} key)` : ''}
      </span>
    </span>
  );
}
