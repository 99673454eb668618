// Every error becomes the documented body {success:false, message, code, details?, requestId};
// unknown routes are 404 and known paths with another method 405.
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ClientGone } from '../db/abandon.js';
import { isUnavailable } from '../db/dialect.js';
import { AppError, type ErrorCode, type ErrorDetail, errorTable } from '../errors.js';
import { routeConfig } from '../http/route-config.js';
import { accessRefusal } from '../modules/keys/key-scopes.js';
import { MAX_DETAILS } from '../validation.js';
import { type Authenticators, resolveCaller } from './authentication.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The error for a body that cannot be read at all on this route. */
    bodyError?: ErrorCode;
  }
}

/** Retry-After on a 503: how long a caller should wait before trying again. */
export const UNAVAILABLE_RETRY_SECONDS = 5;

export function sendError(
  request: FastifyRequest,
  reply: FastifyReply,
  code: ErrorCode,
  details?: ErrorDetail[],
) {
  const { status, message } = errorTable[code];
  // A database restarting or failing over is back within seconds, and a load balancer that sees
  // this retries on another instance; without it, clients guess (and often hammer).
  if (status === 503) reply.header('retry-after', String(UNAVAILABLE_RETRY_SECONDS));
  if (status === 429 && !reply.hasHeader('retry-after')) reply.header('retry-after', '1');
  return (
    reply
      .code(status)
      // Set here too: errors raised before the hooks run (a malformed URL) must carry it as well.
      .header('x-request-id', request.id)
      .type('application/json; charset=utf-8')
      .send({
        success: false,
        message,
        code,
        ...(details ? { details: details.slice(0, MAX_DETAILS) } : {}),
        requestId: request.id,
      })
  );
}

/** Fastify's own errors (raised before our code runs), by their code. */
const FASTIFY_ERRORS: Record<string, ErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'PAYLOAD_TOO_LARGE',
  FST_ERR_RATE_LIMIT_EXCEEDED: 'RATE_LIMITED',
};

function codeFor(error: FastifyError, request: FastifyRequest): ErrorCode {
  if (error instanceof AppError) return error.code;
  const known = error.code ? FASTIFY_ERRORS[error.code] : undefined;
  if (known) return known;
  if (isUnavailable(error)) return 'UNAVAILABLE';
  const status = error.statusCode ?? 500;
  if (status === 413) return 'PAYLOAD_TOO_LARGE';
  if (status === 415) return 'UNSUPPORTED_MEDIA_TYPE';
  if (status >= 400 && status < 500) return routeConfig(request)?.bodyError ?? 'ROUTE_NOT_FOUND';
  return 'INTERNAL';
}

/** Turns a route path like /v1/rules/:ruleId into a pattern matching concrete paths. */
function pathPattern(url: string): RegExp {
  const source = url
    .replace(/\/$/, '')
    .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    .replace(/:[A-Za-z0-9_]+/g, '[^/]+');
  return new RegExp(`^${source}/?$`);
}

/** A route's path without its trailing slash (the router ignores it). */
const trimmed = (path: string) => (path.length > 1 ? path.replace(/\/$/, '') : path);

export function errorHandlerPlugin(app: FastifyInstance): void {
  const routes: { pattern: RegExp; literal: boolean; methods: Set<string> }[] = [];
  /** The methods of each path without parameters (`/v1/rules/deleted`), by that path. */
  const literals = new Map<string, Set<string>>();
  app.addHook('onRoute', (route) => {
    const pattern = pathPattern(route.url);
    let entry = routes.find((r) => r.pattern.source === pattern.source);
    if (!entry) {
      entry = { pattern, literal: !/[:*]/.test(route.url), methods: new Set() };
      routes.push(entry);
      if (entry.literal) literals.set(trimmed(route.url), entry.methods);
    }
    for (const method of [route.method].flat()) entry.methods.add(method);
  });

  /** 405 naming the methods of the path; a literal path is its own, whatever route would also match it. */
  const methodNotAllowed = (request: FastifyRequest, reply: FastifyReply, methods: Set<string>) => {
    reply.header('allow', [...methods].sort().join(', '));
    return sendError(request, reply, 'METHOD_NOT_ALLOWED');
  };

  /**
   * The literal paths a parametric route's template also matches (`/v1/rules/deleted` for
   * `/v1/rules/:ruleId`), each as the parameters that spell it: worked out once per template, on
   * its first request (every route is known by then), so a request compares a parameter or two.
   */
  const beside = new Map<string, { params: [string, string][]; methods: Set<string> }[]>();
  function literalsBeside(template: string) {
    let found = beside.get(template);
    if (found) return found;
    found = [];
    beside.set(template, found);
    if (!/[:*]/.test(template)) return found;
    const names = [...template.matchAll(/:([A-Za-z0-9_]+)/g)].map((match) => match[1] as string);
    const spelled = new RegExp(
      `^${trimmed(template)
        .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
        .replace(/:[A-Za-z0-9_]+/g, '([^/]+)')}/?$`,
    );
    for (const [path, methods] of literals) {
      const match = spelled.exec(path);
      if (match) found.push({ params: names.map((name, i) => [name, match[i + 1] as string]), methods });
    }
    return found;
  }

  // A literal segment beside a parameter (`/rules/deleted` beside `/rules/:ruleId`): the router gives
  // the literal path's missing methods to the parametric route, which would answer as for an id
  // (PUT /v1/rules/deleted: 404 Rule not found). The path is the literal route's, so another method
  // is 405 with its Allow, before the key check, as for any known path.
  app.addHook('onRequest', (request, reply, done) => {
    const template = routeConfig(request).url;
    if (!template) return done();
    const params = request.params as Record<string, string | undefined>;
    for (const literal of literalsBeside(template)) {
      if (literal.params.every(([name, value]) => params[name] === value))
        return methodNotAllowed(request, reply, literal.methods);
    }
    done();
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    // Nobody is left to answer: the work was rolled back (db/abandon.ts); 499 marks it in the log.
    if (error instanceof ClientGone) {
      request.log.info('client went away before the answer: its work was rolled back');
      return reply.code(499).send();
    }
    const code = codeFor(error, request);
    if (error instanceof AppError && error.retryAfterSeconds !== undefined)
      reply.header('retry-after', String(error.retryAfterSeconds));
    if (code === 'INTERNAL' || code === 'UNAVAILABLE') {
      request.log.error({ err: error }, 'request failed');
    }
    return sendError(request, reply, code, error instanceof AppError ? error.details : undefined);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '';
    const matching = routes.filter((r) => r.pattern.test(path));
    // A literal path's own methods, not those of a parametric route that also matches it.
    const known = matching.find((r) => r.literal) ?? matching[0];
    if (known) return methodNotAllowed(request, reply, known.methods);
    return sendError(request, reply, 'ROUTE_NOT_FOUND');
  });
}

/**
 * Fastify's `frameworkErrors`: a URL the router cannot decode (broken percent-encoding) is answered
 * like any other bad id (steps 1 and 2 of http/checks.ts): after the key check, its scope and its
 * user's role, Rule not found or Invalid Group Id, else Route not found. No route was found to declare a
 * scope, but under /v1/rules/ and /v1/groups/ every method but GET changes something.
 */
export function frameworkErrorHandler(authenticators: () => Authenticators) {
  return (_error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    void Promise.resolve(resolveCaller(request, authenticators())).then(
      (resolved) => {
        if ('error' in resolved)
          return sendError(request, reply, resolved.error.code, resolved.error.details);
        const path = request.url;
        const kind = path.startsWith('/v1/rules/')
          ? 'RULE_NOT_FOUND'
          : path.startsWith('/v1/groups/')
            ? 'INVALID_GROUP_ID'
            : undefined;
        if (!kind) return sendError(request, reply, 'ROUTE_NOT_FOUND');
        const reads = request.method === 'GET' || request.method === 'HEAD';
        const { scope, role } = resolved.principal;
        const refused = accessRefusal(scope, role, reads ? 'read' : 'write');
        if (refused) return sendError(request, reply, refused.code, refused.details);
        return sendError(request, reply, kind);
      },
      (error: unknown) => sendError(request, reply, isUnavailable(error) ? 'UNAVAILABLE' : 'INTERNAL'),
    );
  };
}
