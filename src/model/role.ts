// What a person may do in a workspace: their role there. Each role grants everything the ones before
// it do: a `viewer` reads (as a `read` key may), an `editor` also changes rules and groups (`write`),
// an `admin` also manages the workspace's members and settings (`admin`), an `owner` also hands the
// workspace over; a workspace always keeps one owner.
export const ROLES = ['viewer', 'editor', 'admin', 'owner'] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: unknown): value is Role {
  return ROLES.includes(value as Role);
}

/** Whether `held` grants what `needed` does. */
export function roleGrants(held: Role, needed: Role): boolean {
  return ROLES.indexOf(held) >= ROLES.indexOf(needed);
}
