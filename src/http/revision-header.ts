// Rulekeeper-Revision, on every answer to an authenticated /v1 request: a read's is set by the journal's
// revision hooks (modules/changes/revision-hooks.ts), a write's by its route from the revision its
// service recorded and returned.
import type { FastifyReply } from 'fastify';

export const REVISION_HEADER = 'rulekeeper-revision';

/**
 * The revision a write recorded, on its answer: the one it committed, not one read again after the
 * commit (under group commit a later member of the batch may already have moved it). Without one (a
 * replayed create recorded nothing), the hooks read the workspace's revision as the answer is sent.
 */
export function recordedAt(reply: FastifyReply, revision: number | undefined): FastifyReply {
  if (revision !== undefined) reply.header(REVISION_HEADER, revision);
  return reply;
}
