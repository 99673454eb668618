// Who a request speaks for: the key, its user, its workspace and the user's role there.
import type { Role } from './role.js';

/** Who a valid key speaks for. */
export interface Principal {
  keyId: string;
  userId: string;
  workspaceId: string;
  /** The workspace owner's user id (`currentOwner` / `currentOwnerId` in responses). */
  ownerUserId: string;
  /** The user's role in the workspace now: what the key may do is the smaller of it and its scope. */
  role: Role;
}
