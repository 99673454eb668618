// Rulekeeper-Revision on every answer to an authenticated /v1 request, and the revision-based ETags
// of lists: a list whose If-None-Match still holds is answered 304 before any other database work.
import { hash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ifNoneMatchHolds } from '../../http/etag.js';
import { REVISION_HEADER } from '../../http/revision-header.js';
import { routeConfig } from '../../http/route-config.js';
import type { ChangesService, Observed } from './changes-service.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The workspace's revision, read before the answer was built (GET) or after the write. */
    revision: number | undefined;
    /** What cached reads of this GET are checked against (Observed.version). */
    cacheVersion: number | undefined;
  }
  interface FastifyContextConfig {
    /** The route answers a list of the workspace's content: its ETag comes from the revision. */
    revisionEtag?: boolean;
    /**
     * What else a `revisionEtag` list depends on (time, other tables), named cheaply: it goes into the
     * ETag, read before the answer is built as the revision is.
     */
    etagAlso?: (request: FastifyRequest) => Promise<string>;
  }
}

/** Most list digests kept (by workspace and URL); past it, the oldest goes. */
const MAX_DIGESTS = 10_000;
/** Longer requests (a long search) are digested each time: the kept ones stay within a few MB. */
const MAX_DIGESTED_LENGTH = 512;
const digests = new Map<string, string>();

/**
 * A list's content is a function of the workspace's revision and the request (path and query):
 * its ETag changes with either, and only then. The digest of the request is kept: clients ask for
 * the same lists again and again.
 */
function listEtag(request: FastifyRequest, revision: number, also: string): string {
  const named = `${request.principal.workspaceId}\n${request.url}${also === '' ? '' : `\n${also}`}`;
  let digest = digests.get(named);
  if (digest === undefined) {
    digest = hash('sha1', named, 'base64url').slice(0, 16);
    if (named.length > MAX_DIGESTED_LENGTH) return `"${revision}-${digest}"`;
    if (digests.size >= MAX_DIGESTS) digests.delete(digests.keys().next().value as string);
    digests.set(named, digest);
  }
  return `"${revision}-${digest}"`;
}

export function revisionHooks(app: FastifyInstance, changes: Pick<ChangesService, 'observe'>): void {
  app.decorateRequest('revision', undefined);
  app.decorateRequest('cacheVersion', undefined);

  /** Sets the header; on a list, its ETag, and 304 when the client's copy still holds (true). */
  function answered(request: FastifyRequest, reply: FastifyReply, observed: Observed, also = ''): boolean {
    const { revision } = observed;
    request.revision = revision;
    request.cacheVersion = observed.version;
    reply.header(REVISION_HEADER, revision);
    if (!routeConfig(request).revisionEtag) return false;
    const etag = listEtag(request, revision, also);
    reply.header('etag', etag);
    if (!ifNoneMatchHolds(request.headers['if-none-match'], etag)) return false;
    reply.code(304).send();
    return true;
  }

  // Reads are answered from the revision read first: data built after it is at least as new, so
  // an ETag made from it can only be stale (a needless 200 later), never wrong (a 304 that hides a change).
  // A public read (GET /v1/session/providers) speaks for no workspace: it has no revision.
  app.addHook('preHandler', (request, reply, done) => {
    if (request.method !== 'GET' || !request.principal) return done();
    const observed = changes.observe(request.principal.workspaceId);
    const { revisionEtag, etagAlso } = routeConfig(request);
    if (revisionEtag && etagAlso) {
      Promise.all([observed, etagAlso(request)]).then(([value, also]) => {
        if (!answered(request, reply, value, also)) done();
      }, done);
      return;
    }
    observed.then((value) => {
      if (!answered(request, reply, value)) done();
    }, done);
  });

  // Writes (and errors before the handler) carry the revision as it is after them: the one a write
  // recorded, set by its route (http/revision-header.ts), when it succeeded (then it is committed),
  // else the workspace's, read again.
  app.addHook('onSend', (request, reply, payload, done) => {
    if (request.revision !== undefined || !request.principal) return done(null, payload);
    if (reply.hasHeader(REVISION_HEADER) && reply.statusCode < 400) return done(null, payload);
    changes.observe(request.principal.workspaceId).then(
      ({ revision }) => {
        reply.header(REVISION_HEADER, revision);
        done(null, payload);
      },
      () => done(null, payload),
    );
  });
}
