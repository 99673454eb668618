// What a key may do: its scope, the scope each route needs, and the refusal when it falls short.
import { AppError, type ErrorDetail } from '../../errors.js';
import type { Role } from '../../model/role.js';

/**
 * Each scope grants everything the ones before it do: `read` reads (and traces, follows changes,
 * exports), `write` also changes rules and groups, `admin` also changes the workspace's settings.
 */
export const KEY_SCOPES = ['read', 'write', 'admin'] as const;
export type KeyScope = (typeof KEY_SCOPES)[number];

/** The scope of a key issued without one, and of every key issued before scopes existed. */
export const DEFAULT_SCOPE: KeyScope = 'write';

/** What a route needing this scope does, as a refused caller reads it. */
const WHAT_IT_NEEDS: Record<KeyScope, string> = {
  read: 'read this workspace',
  write: 'change rules or groups',
  admin: "change the workspace's settings",
};

export function isKeyScope(value: unknown): value is KeyScope {
  return KEY_SCOPES.includes(value as KeyScope);
}

export function grants(held: KeyScope, needed: KeyScope): boolean {
  return KEY_SCOPES.indexOf(held) >= KEY_SCOPES.indexOf(needed);
}

/** Why a key of scope `held` is refused a route that needs `needed`: the 403's detail. */
export const scopeDetail = (held: KeyScope, needed: KeyScope): ErrorDetail => ({
  path: '',
  message: `this key's scope is ${held}: it cannot ${WHAT_IT_NEEDS[needed]}`,
});

/** 403 `Unauthorized action`, naming the key's scope, when it does not grant `needed`. */
export function scopeRefusal(held: KeyScope, needed: KeyScope): AppError | undefined {
  return grants(held, needed) ? undefined : new AppError('UNAUTHORIZED_ACTION', [scopeDetail(held, needed)]);
}

/** The broadest scope a role reaches: a key does no more than its user's role allows. */
export const ROLE_REACH: Record<Role, KeyScope> = {
  viewer: 'read',
  editor: 'write',
  admin: 'admin',
  owner: 'admin',
};

/** The role a key's scope stands for, where a key made a member (before roles, and by the CLI). */
export const ROLE_OF_SCOPE: Record<KeyScope, Role> = { read: 'viewer', write: 'editor', admin: 'admin' };

/**
 * 403 `Unauthorized action` when a key of scope `scope`, held by a member of role `role`, does not
 * reach `needed`: the detail names what falls short, the key's scope first (which its holder chose).
 */
export function accessRefusal(scope: KeyScope, role: Role, needed: KeyScope): AppError | undefined {
  const short = scopeRefusal(scope, needed);
  if (short || grants(ROLE_REACH[role], needed)) return short;
  return new AppError('UNAUTHORIZED_ACTION', [
    { path: '', message: `your role in this workspace is ${role}: it cannot ${WHAT_IT_NEEDS[needed]}` },
  ]);
}

/** What a key of scope `scope`, held by a member of role `role`, may do: the smaller of the two. */
export function effectiveScope(scope: KeyScope, role: Role): KeyScope {
  return grants(scope, ROLE_REACH[role]) ? ROLE_REACH[role] : scope;
}

/**
 * What a caller may do: the smaller of its key's (or session's) scope and its role. A principal
 * without a scope is the operator at the server's shell (the CLI): all its role allows.
 */
export const reachOf = (principal: { scope?: KeyScope; role: Role }): KeyScope =>
  effectiveScope(principal.scope ?? 'admin', principal.role);
