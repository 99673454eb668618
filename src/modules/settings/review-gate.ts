// The review setting's gate on direct writes (decisions §19): every route that writes rules or groups
// declares `config.reviewed`, and while the workspace's review is required an editor's request there is
// refused with `409 Review required` before its body is read, so nothing changes. A caller that may
// still write (reaching `admin`) goes on marked, and the change log records its write as past the review.
import type { FastifyInstance } from 'fastify';
import type { SettingsService } from './settings-service.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route writes rules or groups directly: refused to editors while review is required. */
    reviewed?: boolean;
  }
}

export function registerReviewGate(app: FastifyInstance, settings: SettingsService): void {
  app.addHook('preParsing', async (request, _reply, payload) => {
    if (!request.routeOptions.config.reviewed || !request.principal) return payload;
    const { principal } = request;
    const found = settings.of(principal.workspaceId);
    const current = found instanceof Promise ? await found : found;
    // The cached principal serves every request of its key: marked on a copy, for this request alone.
    if (settings.directWrite(principal, current))
      request.principal = { ...principal, reviewBypassed: true } as never;
    return payload;
  });
}
