// The review setting's gate on direct writes (decisions §19): every route that writes rules or groups
// declares `config.reviewed`, and while the workspace's review is required an editor's request there is
// refused with `409 Review required` before its body is read, so nothing changes. A caller that may
// still write (reaching `admin`) goes on marked, and the change log records its write as past the review.
import type { FastifyInstance, FastifyReply, FastifyRequest, RequestPayload } from 'fastify';
import type { SettingsService } from './settings-service.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route writes rules or groups directly: refused to editors while review is required. */
    reviewed?: boolean;
  }
}

export function registerReviewGate(app: FastifyInstance, settings: SettingsService): void {
  async function gate(request: FastifyRequest, _reply: FastifyReply, payload: RequestPayload) {
    if (!request.principal) return payload;
    const { principal } = request;
    const found = settings.of(principal.workspaceId);
    const current = found instanceof Promise ? await found : found;
    // The cached principal serves every request of its key: marked on a copy, for this request alone.
    if (settings.directWrite(principal, current))
      request.principal = { ...principal, reviewBypassed: true } as never;
    return payload;
  }
  // On the routes that declare it alone, after the scope's own preParsing hooks (the caller's check):
  // a read is not held up by a hook that has nothing to do for it.
  app.addHook('onRoute', (route) => {
    if (!route.config?.reviewed) return;
    route.preParsing = [...[route.preParsing ?? []].flat(), gate];
  });
}
