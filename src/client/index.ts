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

export interface ClientOptions {
  /** Where the service is, e.g. `http://127.0.0.1:8080` (the paths carry `/v1`). */
  baseUrl: string;
  /** The workspace's API key, sent as `x-api-key`. */
  key: string;
  /** Another fetch (a test's, a proxy-aware one); default the global fetch. */
  fetch?: typeof fetch;
}

/**
 * A client whose methods are the HTTP verbs: `client.GET('/v1/rules/{ruleId}', { params: { path: {
 * ruleId } } })` answers `{ data, error, response }`, `data` typed by the document for a 2xx and
 * `error` (the error body) otherwise.
 */
export function createClient(options: ClientOptions): RulekeeperClient {
  return createFetchClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { 'x-api-key': options.key },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}
