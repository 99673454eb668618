// Who is signed in: the key's client, and what to do when the service stops accepting the key.
import { createContext } from 'preact';
import { useCallback, useContext } from 'preact/hooks';
import { ApiError, type RulekeeperClient, unwrap } from './api.js';

export interface Session {
  client: RulekeeperClient;
  /** Leaves the console; `reason` is shown on the sign-in page. */
  signOut: (reason?: string) => void;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside a signed-in page');
  return session;
}

export const REVOKED_MESSAGE =
  'The service no longer accepts this API key: it was revoked or never existed. Sign in with another key.';

type Answer<T> = { data?: T; error?: unknown; response: Response };

/**
 * Makes a call and answers its data (and shows `onResponse` the response, for its headers). A key
 * the service refuses (revoked while the page was open) signs out with a message instead of leaving
 * every panel failing on its own.
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
        if (error instanceof ApiError && error.status === 401) session.signOut(REVOKED_MESSAGE);
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
