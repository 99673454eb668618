// Prometheus metrics: request counts and latencies by route and status, plus the process defaults.
import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Histogram, type Metric, Registry } from 'prom-client';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route answers a long-lived stream (server-sent events). */
    stream?: boolean;
  }
}

/** `extra`: the modules' own metrics (the hits' counters), made without a registry. */
export function metricsPlugin(app: FastifyInstance, extra: Metric[] = []): void {
  // One registry per app, so that several apps in one process (tests) do not collide.
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  for (const metric of extra) registry.registerMetric(metric);
  const duration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'HTTP request latency by method, route and status; its _count is the request count.',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });

  // One labelled series per method, route and status, looked up once: prom-client would otherwise
  // hash the label set on every observation.
  const series = new Map<string, { observe(seconds: number): void }>();

  app.addHook('onResponse', (request, reply, done) => {
    // A stream's duration is how long its client stayed, not how fast the service answered.
    if (request.routeOptions.config.stream) return done();
    // The route pattern, never the raw URL: ids in paths would make unbounded label values.
    const route = request.routeOptions.url ?? 'unmatched';
    const name = `${request.method} ${route} ${reply.statusCode}`;
    let observed = series.get(name);
    if (!observed) {
      observed = duration.labels(request.method, route, String(reply.statusCode));
      series.set(name, observed);
    }
    observed.observe(reply.elapsedTime / 1000);
    done();
  });

  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    reply.type(registry.contentType);
    return registry.metrics();
  });
}
