// Who a request speaks for: the key or session, its user, its workspace and the user's role there.
import type { Role } from './role.js';

/** Who a valid key, or a signed-in person's session, speaks for. */
export interface Principal {
  /** How the caller came in: an API key, or a session cookie (a person signed in to the console). */
  via: 'key' | 'session';
  /**
   * The key's id, or the session's public id (`ses_…`): what fairness, rate limits and stream limits
   * count by. Never the secret itself.
   */
  keyId: string;
  userId: string;
  workspaceId: string;
  /** The workspace owner's user id (`currentOwner` / `currentOwnerId` in responses). */
  ownerUserId: string;
  /** The user's role in the workspace now: what the key may do is the smaller of it and its scope. */
  role: Role;
  /**
   * A key's bound environment (decisions §20): what its evaluations use when they name none; null or
   * absent (a session) for `default`.
   */
  environment?: string | null;
}
