// A request's route configuration (`config` of its route, with its url and method), read once per
// request: Fastify's `request.routeOptions` builds a new object on every access, and the hooks of
// every request ask for the configuration several times.
import type { FastifyRequest } from 'fastify';

type RouteConfig = FastifyRequest['routeOptions']['config'];

declare module 'fastify' {
  interface FastifyRequest {
    /** routeConfig's copy; decorated by everyRequestPlugin. */
    routeConfigOnce: RouteConfig | null;
  }
}

export function routeConfig(request: FastifyRequest): RouteConfig {
  if (request.routeConfigOnce === null || request.routeConfigOnce === undefined)
    request.routeConfigOnce = request.routeOptions.config;
  return request.routeConfigOnce;
}
