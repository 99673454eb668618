// Who is signed in (a person with a session, or a key), what they may do in the workspace shown, and
// what to do when the service stops accepting them.
import { createContext } from 'preact';
import { useCallback, useContext } from 'preact/hooks';
import { ApiError, type Credentials, type RulekeeperClient, type Schemas, unwrap } from './api.js';

export type Role = Schemas['Member']['role'];
export type UserWorkspace = Schemas['Session']['workspaces'][number];

/** Who the console speaks for. */
export interface Signed {
  credentials: Credentials;
  /** The person's (or the key's user's) id: what marks "you" among members, keys and activity. */
  userId: string;
  /** The key the console speaks with, when it is a key (revoking it signs the console out). */
  keyId?: string;
  /** The environment that key is bound to, if it is: the console's first choice of environment. */
  keyEnvironment?: string;
  /** The person or the key's user, as the header shows them. */
  name: string;
  /** Their role in the workspace shown. */
  role: Role;
  /** A key's scope (a person's session has the reach of its role). */
  scope: 'read' | 'write' | 'admin';
  /** The workspace shown, and (for a person) every workspace they belong to. */
  workspaceId: string;
  workspaces: UserWorkspace[];
}

export interface Session extends Signed {
  client: RulekeeperClient;
  /** Whether rules and groups may be changed here: the smaller of the key's scope and the role. */
  canWrite: boolean;
  /** Whether members, invites and workspace keys may be managed here. */
  canAdmin: boolean;
  /** Shows another of the person's workspaces. */
  switchWorkspace: (workspaceId: string) => void;
  /** Leaves the console; `reason` is shown on the sign-in page. */
  signOut: (reason?: string) => void;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in page');
  return session;
}

const RANK: Record<Role, number> = { viewer: 0, editor: 1, admin: 2, owner: 2 };
/** Key scopes, narrowest first. */
export const SCOPES = ['read', 'write', 'admin'] as const;

/** How far a role and a key's scope together reach: the index of the broadest scope allowed. */
export const reachOf = (role: Role, scope: Signed['scope']) => Math.min(RANK[role], SCOPES.indexOf(scope));

/** What a role and a key's scope together allow, as the service decides it. */
export function powers(role: Role, scope: Signed['scope']): { canWrite: boolean; canAdmin: boolean } {
  const reach = reachOf(role, scope);
  return { canWrite: reach >= 1, canAdmin: reach >= 2 };
}

export const REVOKED_MESSAGE =
  'The service no longer accepts this API key: it was revoked or never existed. Sign in with another key.';
export const SESSION_ENDED_MESSAGE =
  'Your session ended (signed out elsewhere, or expired), or you are no longer a member of this workspace. Sign in again.';

/** A person's session refused in this workspace (removed from it): the service answers 403 so. */
export function noLongerMember(error: unknown): boolean {
  return (
    error instanceof ApiError &&
    error.status === 403 &&
    error.details.some((d) => /^you are (not a member of workspace|a member of no workspace)/.test(d.message))
  );
}

/** What the sign-in page says when the service stops accepting who the console speaks for. */
export const refusedMessage = (credentials: Credentials) =>
  'key' in credentials ? REVOKED_MESSAGE : SESSION_ENDED_MESSAGE;

type Answer<T> = { data?: T; error?: unknown; response: Response };

/**
 * Makes a call and answers its data (and shows `onResponse` the response, for its headers). A key
 * or session the service refuses (revoked or ended while the page was open) signs out with a message
 * instead of leaving every panel failing on its own.
 */
export function useApi() {
  const session = useSession();
  // Stable while the session is, so that effects can depend on it.
  return useCallback(
    async <T,>(
      call: (client: RulekeeperClient) => Promise<Answer<T>>,
      onResponse?: (response: Response) => void,
    ): Promise<T> => {
      try {
        const answer = await call(session.client);
        onResponse?.(answer.response);
        return unwrap(answer);
      } catch (error) {
        if ((error instanceof ApiError && error.status === 401) || noLongerMember(error))
          session.signOut(refusedMessage(session.credentials));
        throw error;
      }
    },
    [session],
  );
}

/** A sentence for a failed call, for panels that show one. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof TypeError) return 'The service could not be reached. Is it running?';
  return error instanceof Error ? error.message : String(error);
}
