// The roles as the console offers and explains them. Who may give which: an admin gives any role but
// owner; only an owner makes, unmakes or removes an owner (the service refuses anything else).
import type { Role } from '../session.js';

export const ROLE_WORDS: Record<Role, string> = {
  viewer: 'Viewer: reads rules and groups, tries requests, exports',
  editor: 'Editor: also changes rules and groups, imports',
  admin: 'Admin: also manages members, workspace keys and sees security events',
  owner: 'Owner: also makes owners; a workspace keeps at least one',
};

/** The roles `giver` may give to a member who is now `current`, in order of power. */
export function rolesToGive(giver: Role, current: Role): Role[] {
  const all: Role[] = ['viewer', 'editor', 'admin', 'owner'];
  if (giver === 'owner') return all;
  // An admin cannot touch an owner at all; otherwise anything short of owner.
  return current === 'owner' ? [] : all.filter((role) => role !== 'owner');
}

/** "a viewer", "an editor", "an admin", "an owner". */
export const withArticle = (role: Role) => `${role === 'viewer' ? 'a' : 'an'} ${role}`;
