// Where a browser says a request comes from, against where this service is reached.
import type { FastifyRequest } from 'fastify';

/**
 * The origin this service is reached at: PUBLIC_URL's when set (behind a proxy that rewrites Host),
 * else the request's own.
 */
export function ownOrigin(request: FastifyRequest, publicUrl: string | undefined): string {
  return publicUrl ? new URL(publicUrl).origin : `${request.protocol}://${request.host}`;
}

/**
 * Whether the browser said the request comes from another origin. No `Origin` says nothing: tools
 * other than browsers send none, and browsers send it on every cross-origin write.
 */
export function crossOrigin(request: FastifyRequest, publicUrl: string | undefined): boolean {
  const origin = request.headers.origin;
  return origin !== undefined && origin !== ownOrigin(request, publicUrl);
}

/** Whether people reach the service over HTTPS (PUBLIC_URL's scheme, else the request's): secure cookies. */
export function securelyReached(request: FastifyRequest, publicUrl: string | undefined): boolean {
  return publicUrl?.startsWith('https:') === true || request.protocol === 'https';
}
