// Who a request speaks for: the key, its user and its workspace.
/** Who a valid key speaks for. */
export interface Principal {
  keyId: string;
  userId: string;
  workspaceId: string;
  /** The workspace owner's user id (`currentOwner` / `currentOwnerId` in responses). */
  ownerUserId: string;
}
