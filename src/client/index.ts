// `import { createClient } from 'rulekeeper/client'`: a typed client of the HTTP API, its types
// generated from the OpenAPI document at build time (openapi-typescript), its calls made by
// openapi-fetch. Paths, parameters, bodies and answers are checked by TypeScript: a Delay rule with
// Redirect pairs does not compile.
import createFetchClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './schema.js';

export {
  EventTooLargeError,
  eventChunks,
  MAX_EVENT_CHARS,
  parseEvents,
  type StreamEvent,
} from './events.js';
export type { components, paths };
/** The document's named schemas: `Schemas['RedirectRule']`, `Schemas['ErrorBody']`, … */
export type Schemas = components['schemas'];
export type RulekeeperClient = Client<paths>;

/** A person signed in (`POST /v1/session`): the browser sends the cookie; the client adds the rest. */
export interface SessionCredentials {
  /** The session's CSRF token (`csrfToken` of the sign-in answer), sent with every change. */
  csrfToken: string;
  /** The workspace to act in (`x-rk-workspace`); the person's first without it. */
  workspaceId?: string;
  /** The Cookie header, outside a browser (which sends the cookie itself). */
  cookie?: string;
}

export type ClientOptions = {
  /** Where the service is, e.g. `http://127.0.0.1:8080` (the paths carry `/v1`). */
  baseUrl: string;
  /** Another fetch (a test's, a proxy-aware one); default the global fetch. */
  fetch?: typeof fetch;
} & (
  | {
      /** The workspace's API key, sent as `x-api-key`. */
      key: string;
      session?: never;
    }
  | { key?: never; session: SessionCredentials }
);

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The headers a session's requests carry: its workspace, its cookie outside a browser. */
function sessionHeaders(session: SessionCredentials): Record<string, string> {
  return {
    ...(session.workspaceId ? { 'x-rk-workspace': session.workspaceId } : {}),
    ...(session.cookie ? { cookie: session.cookie } : {}),
  };
}

/**
 * A client whose methods are the HTTP verbs: `client.GET('/v1/rules/{ruleId}', { params: { path: {
 * ruleId } } })` answers `{ data, error, response }`, `data` typed by the document for a 2xx and
 * `error` (the error body) otherwise. With an API key, or with a person's session.
 */
export function createClient(options: ClientOptions): RulekeeperClient {
  const { session } = options;
  const client = createFetchClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: session ? sessionHeaders(session) : { 'x-api-key': options.key },
    // The session cookie goes with requests to the service's own origin (a browser's default).
    ...(session ? { credentials: 'same-origin' as const } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  if (session)
    client.use({
      onRequest({ request }) {
        if (!SAFE_METHODS.has(request.method)) request.headers.set('x-rk-csrf', session.csrfToken);
        return request;
      },
    });
  return client;
}
