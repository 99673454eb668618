// The console's only way to the API: the typed client generated from the OpenAPI document (built by
// `npm run build` into src/client), so a field the document does not describe fails the typecheck.
import { createClient, type paths, type RulekeeperClient, type Schemas } from '../../src/client/index.js';

export type { paths, RulekeeperClient, Schemas };
export type Rule = Schemas['Rule'];
export type RuleType = Rule['ruleType'];
export type Group = Schemas['GroupListItem'];
export type ErrorBody = Schemas['ErrorBody'];
/**
 * One operation of a change request as the console reads and writes it: the document types each
 * variant's body as its direct route does; the console carries the bodies its editors wrote, and the
 * service judges them as it judges any client's.
 */
export interface ChangeOperation {
  op: 'create' | 'update' | 'delete';
  kind: 'rule' | 'group';
  id?: string;
  body?: Record<string, unknown>;
}
export type ChangeRequest = Omit<Schemas['ChangeRequest'], 'operations'> & { operations: ChangeOperation[] };
export type ChangeRequestListItem = Schemas['ChangeRequestListItem'];
export type Evidence = Schemas['ChangeRequestEvidence'];
export type Settings = Schemas['Settings'];
export type Variable = Schemas['Variable'];
export type ErrorDetail = NonNullable<ErrorBody['details']>[number];

// The key lives for the browser tab's session only: never in a URL, a cookie or localStorage.
const KEY_ITEM = 'rulekeeper.apiKey';

export function savedKey(): string | null {
  return sessionStorage.getItem(KEY_ITEM);
}

export function saveKey(key: string): void {
  sessionStorage.setItem(KEY_ITEM, key);
}

export function forgetKey(): void {
  sessionStorage.removeItem(KEY_ITEM);
}

/**
 * How the console speaks to the API: with an API key (kept in the tab's session storage), or as a
 * person signed in (the browser holds the HttpOnly cookie; the page holds only the CSRF token and the
 * workspace it shows).
 */
export type Credentials = { key: string } | { session: { csrfToken: string; workspaceId?: string } };

export function clientFor(credentials: Credentials): RulekeeperClient {
  return createClient({ baseUrl: location.origin, ...credentials });
}

/** A client with no credentials, for signing in and for reading the session the cookie holds. */
export function anonymousClient(): RulekeeperClient {
  return createClient({ baseUrl: location.origin, session: { csrfToken: '' } });
}

/** An answer that was not a success: the API's error body, or one made up when there was none. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody | undefined,
  ) {
    super(body?.message ?? `The service answered ${status}`);
  }
  get code(): string | undefined {
    return this.body?.code;
  }
  get details(): ErrorDetail[] {
    return this.body?.details ?? [];
  }
}

/** What openapi-fetch answers, turned into the data or a thrown ApiError (204: no body, undefined). */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.response.ok && (result.data !== undefined || result.response.status === 204))
    return result.data as T;
  const body = result.error as ErrorBody | undefined;
  throw new ApiError(result.response.status, typeof body === 'object' && body ? body : undefined);
}

/** Operations as the document types them: the service checks each body as its direct route does. */
export const sentOperations = (operations: ChangeOperation[]) =>
  operations as unknown as paths['/v1/change-requests']['post']['requestBody']['content']['application/json']['operations'];
