// The JSON body parser: malformed bodies are handed to the services, which answer them in order.
import type { FastifyInstance } from 'fastify';
import { parseJsonBody } from '../http/payload.js';

export function jsonBodyPlugin(app: FastifyInstance): void {
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    done(null, parseJsonBody(body as string));
  });
}
