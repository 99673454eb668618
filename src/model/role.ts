// What a person may do in a workspace: their role there. Each role grants everything the ones before
// it do: a `viewer` reads (as a `read` key may), an `editor` also changes rules and groups (`write`),
// an `admin` also manages the workspace's members and settings (`admin`), an `owner` also hands the
// workspace over; a workspace always keeps one owner.
import { Type } from '@sinclair/typebox';

export const ROLES = ['viewer', 'editor', 'admin', 'owner'] as const;
export type Role = (typeof ROLES)[number];

/** A role as the API reads and writes it (members, whoami). */
export const RoleSchema = Type.Union(
  ROLES.map((role) => Type.Literal(role)),
  {
    description:
      'What the member may do here: `viewer` reads (as a `read` key), `editor` also changes rules and ' +
      'groups (`write`), `admin` also manages members (`admin`), `owner` also makes and removes owners. ' +
      "A key does the smaller of its scope and its user's role.",
  },
);
