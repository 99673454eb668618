// The trace body as the OpenAPI document states it: the checked schema (trace-schemas.ts) with the URL
// forms a schema can say. The service parses URLs as a browser does (engine/request.ts), which no
// pattern says exactly (see plugins/openapi-limits.ts), so these patterns are for the document only.
import type { TSchema } from '@sinclair/typebox';
import { RuleCreate } from '../../model/rule.js';
import { TraceBody } from './trace-schemas.js';

/** A URL of a scheme the engine handles (http, https, ws, wss in any letter case). */
export const TRACE_URL_PATTERN = '^[Hh][Tt][Tt][Pp][Ss]?:|^[Ww][Ss][Ss]?:';
/** An absolute URL: a scheme first. */
export const ABSOLUTE_URL_PATTERN = '^[A-Za-z][A-Za-z0-9+.-]*:';
/** An HTTP method: letters only (trace-service.ts checks it after the schema, with its own message). */
export const METHOD_PATTERN = '^[A-Za-z]+$';

type Properties = Record<string, TSchema & { properties?: Properties }>;

export const DocumentedTraceBody: typeof TraceBody = (() => {
  const body = structuredClone(TraceBody) as unknown as { properties: Properties; not?: unknown };
  const request = body.properties.request?.properties ?? {};
  if (request.url) request.url.pattern = TRACE_URL_PATTERN;
  if (request.pageUrl) request.pageUrl.pattern = ABSOLUTE_URL_PATTERN;
  if (request.method) request.method.pattern = METHOD_PATTERN;
  // Each inline rule is read as POST /v1/rules reads its body (older formats converted, as an import's
  // records are: see openapi-limits.ts); the checked schema leaves them to that reading, with its paths.
  if (body.properties.rules) body.properties.rules.items = RuleCreate;
  // Saved rules or unsaved ones, not both (trace-service.ts refuses both: 400 at /ruleIds). The empty
  // `properties` change nothing; they name what `required` means for linters that look for them.
  body.not = { required: ['ruleIds', 'rules'], properties: { ruleIds: {}, rules: {} } };
  return body as unknown as typeof TraceBody;
})();
