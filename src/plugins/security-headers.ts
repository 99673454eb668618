// Security headers on every response: the set @fastify/helmet sends by default (less the upgrade of
// subresources to HTTPS, since the service is often reached over plain HTTP), computed once instead of
// per request, set by the shared onRequest hook (every-request.ts). /docs replaces the CSP with its own.

export const SECURITY_HEADERS = {
  'content-security-policy': [
    "default-src 'self'",
    "base-uri 'self'",
    "font-src 'self' https: data:",
    "form-action 'self'",
    "frame-ancestors 'self'",
    "img-src 'self' data:",
    "object-src 'none'",
    "script-src 'self'",
    "script-src-attr 'none'",
    "style-src 'self' https: 'unsafe-inline'",
  ].join(';'),
  // Answers depend on the caller's key: no shared cache may keep them, and a browser asks again each
  // time (with If-None-Match, which the ETags answer cheaply). The console's files set their own.
  'cache-control': 'private, no-cache',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-dns-prefetch-control': 'off',
  'x-download-options': 'noopen',
  'x-frame-options': 'SAMEORIGIN',
  'x-permitted-cross-domain-policies': 'none',
  'x-xss-protection': '0',
};
