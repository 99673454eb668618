// Who did something and how they came in, as a security event records it. Built from the request's
// principal and its address (the route's `request.ip`), never kept inside the cached principal: one
// principal serves every request of its key, each from its own address.
import type { Principal } from '../../model/principal.js';

export interface Actor {
  /** The user who acted; null when none is known (a failed sign-in of an unknown email). */
  userId: string | null;
  /** `session`, `cli`, or the id of the key the request came with; null when unknown. */
  via: string | null;
  /** The client's address; null when there is none (the command line). */
  address: string | null;
}

/**
 * The actor of a request made with `principal` from `address`: a person's session, the operator at
 * the server's shell (a principal without a key: cli/local-workspace.ts), or a key by its id.
 */
export function actorOf(principal: Principal, address: string | null = null): Actor {
  const via = principal.via === 'session' ? 'session' : principal.keyId === '' ? 'cli' : principal.keyId;
  return { userId: principal.userId, via, address };
}
