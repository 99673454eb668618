// The trace body as the OpenAPI document states it: the checked schema (trace-schemas.ts) with the URL
// forms a schema can say. The service parses URLs as a browser does (engine/request.ts), which no
// pattern says exactly (see plugins/openapi-limits.ts), so these patterns are for the document only.
import type { TSchema } from '@sinclair/typebox';
import { TraceBody } from './trace-schemas.js';

/** A URL of a scheme the engine handles (http, https, ws, wss in any letter case). */
export const TRACE_URL_PATTERN = '^[Hh][Tt][Tt][Pp][Ss]?:|^[Ww][Ss][Ss]?:';
/** An absolute URL: a scheme first. */
export const ABSOLUTE_URL_PATTERN = '^[A-Za-z][A-Za-z0-9+.-]*:';
/** An HTTP method: letters only (trace-service.ts checks it after the schema, with its own message). */
export const METHOD_PATTERN = '^[A-Za-z]+$';

type Properties = Record<string, TSchema & { properties?: Properties }>;

export const DocumentedTraceBody: typeof TraceBody = (() => {
  const body = structuredClone(TraceBody) as unknown as { properties: Properties };
  const request = body.properties.request?.properties ?? {};
  if (request.url) request.url.pattern = TRACE_URL_PATTERN;
  if (request.pageUrl) request.pageUrl.pattern = ABSOLUTE_URL_PATTERN;
  if (request.method) request.method.pattern = METHOD_PATTERN;
  return body as unknown as typeof TraceBody;
})();
