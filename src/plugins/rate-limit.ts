// Rate limits per API key, or per client address for requests without a valid key; shared by every
// instance through Redis when REDIS_URL is set, per instance otherwise.
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { Redis } from 'ioredis';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';

/** Registers the limiter on the routes of `app` that follow. */
export async function rateLimitPlugin(
  app: FastifyInstance,
  config: Pick<Config, 'rateLimitPerMinute' | 'redisUrl'>,
): Promise<void> {
  if (config.rateLimitPerMinute === 0) return;
  const redis = config.redisUrl
    ? new Redis(config.redisUrl, { connectTimeout: 500, commandTimeout: 500, maxRetriesPerRequest: 1 })
    : undefined;
  // An unreachable Redis must not take the API down with it: requests pass uncounted meanwhile.
  redis?.on('error', (err) => app.log.warn({ err }, 'rate-limit store unreachable'));
  await app.register(rateLimit, {
    max: config.rateLimitPerMinute,
    timeWindow: 60_000,
    redis,
    nameSpace: 'rulekeeper-rl:',
    skipOnError: true,
    enableDraftSpec: true,
    keyGenerator: (request) => (request.principal ? `key:${request.principal.keyId}` : `ip:${request.ip}`),
    errorResponseBuilder: () => new AppError('RATE_LIMITED'),
  });
  app.addHook('onClose', async () => redis?.disconnect());
}
