// HTTP routes of /v1/changes: the paged change feed and the server-sent event stream.
import type { OutgoingHttpHeaders } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { header } from '../../http/replies.js';
import { ALWAYS, answerHeaders, errorResponses, notModified, success } from '../../http/responses.js';
import { IfNoneMatch } from '../../http/schemas.js';
import type { ChangeHub } from './change-hub.js';
import {
  ChangesQuery,
  FeedPage,
  LastEventId,
  readChangesQuery,
  readStreamStart,
  StreamQuery,
} from './changes-schemas.js';
import type { ChangesService } from './changes-service.js';

export function registerChangesRoutes(app: FastifyInstance, changes: ChangesService, hub: ChangeHub): void {
  const common = { tags: ['changes'], security: [{ apiKey: [] }] };

  app.get(
    '/changes',
    {
      config: { scope: 'read', revisionEtag: true },
      schema: {
        ...common,
        operationId: 'listChanges',
        summary: "The workspace's changes after a revision, oldest first, whole revisions per page",
        description:
          '410 when changes after `after` are no longer kept: read the lists again, then follow from `latest`.',
        querystring: ChangesQuery,
        headers: IfNoneMatch,
        response: {
          200: success('Changes after `after`, oldest first.', FeedPage, { etag: true }),
          ...notModified,
          ...errorResponses('INVALID_QUERY', 'CHANGES_EXPIRED', ...ALWAYS),
        },
      },
    },
    async (request) => {
      const { after, limit } = readChangesQuery(request.query);
      return { success: true, ...(await changes.feed(request.principal.workspaceId, after, limit)) };
    },
  );

  app.get(
    '/changes/stream',
    {
      config: { scope: 'read', stream: true },
      // A HEAD would open a stream that never sends anything.
      exposeHeadRoute: false,
      schema: {
        ...common,
        operationId: 'streamChanges',
        summary: 'Every change as it happens, as server-sent events',
        description:
          'Events `change` (data: a change as `/changes` lists it; `id`: its revision, on the last event of ' +
          'each revision), `bulk` (data `{revision, changes}`, `id`: the revision) for a revision of more ' +
          'than 1000 changes, sent instead of its changes: read the lists again; comment heartbeats; and ' +
          '`reset` (data `{latest}`) when the changes after the asked revision are no longer kept. Resumes ' +
          'after `Last-Event-ID`, else `?after`, else from now. A key may hold `MAX_STREAMS_PER_KEY` ' +
          'streams (default 20) on an instance, and an instance `MAX_STREAMS` (default 5000): past them, 429 ' +
          'or 503 with `Retry-After`. A stream with more than `MAX_STREAM_BUFFER_BYTES` (default 1 MiB) unsent ' +
          'is sent nothing more until its client reads; a client that reads nothing for two heartbeat periods ' +
          'meanwhile is disconnected, and resumes with `Last-Event-ID`. ' +
          'A stream ends when its key is revoked or expires (within `KEY_CACHE_TTL_MS`).',
        querystring: StreamQuery,
        produces: ['text/event-stream'],
        headers: LastEventId,
        response: {
          200: {
            description: 'The stream of server-sent events; it stays open.',
            headers: answerHeaders(),
            content: {
              'text/event-stream': { schema: { type: 'string', description: 'Server-sent events.' } },
            },
          },
          ...errorResponses('INVALID_QUERY', 'TOO_MANY_STREAMS', 'STREAMS_FULL', ...ALWAYS),
        },
      },
    },
    async (request, reply) => {
      const { principal } = request;
      const { workspaceId } = principal;
      const start = readStreamStart(request.query, header(request, 'last-event-id'));
      const latest = request.revision ?? (await changes.revision(workspaceId));
      const reset =
        start !== undefined && (start > latest || start < (await changes.sweptRevision(workspaceId)));
      // Refused past the limits before anything is sent; nothing awaited from here to subscribe.
      hub.admit(principal);
      // The stream is written by hand and lives until the client leaves or the service stops: no
      // idle timeout on its socket (heartbeats flow anyway), and the connection closes with it.
      reply.hijack();
      request.raw.socket.setTimeout(0);
      reply.raw.writeHead(200, {
        ...(reply.getHeaders() as OutgoingHttpHeaders),
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        connection: 'close',
        'x-accel-buffering': 'no',
      });
      const position = reset || start === undefined ? latest : start;
      // The first block names the position even before any change: an EventSource that reconnects
      // early resumes from it (an `id:` without data sets Last-Event-ID and dispatches nothing).
      reply.raw.write(
        reset ? `event: reset\nid: ${latest}\ndata: {"latest":${latest}}\n\n` : `: open\nid: ${position}\n\n`,
      );
      hub.subscribe(principal, position, reply.raw);
    },
  );
}
