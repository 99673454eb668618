// HTTP to a real service process, one new connection per request, reporting how each ended: a whole
// response, or an error (refused, reset) and whether the connection had been established first.
import { request } from 'node:http';

export type Outcome =
  | { kind: 'response'; status: number; text: string; headers: Record<string, unknown> }
  | { kind: 'error'; code: string; connected: boolean };

export function rawRequest(
  base: string,
  options: { method?: string; path: string; key?: string; body?: unknown; timeoutMs?: number },
): Promise<Outcome> {
  const url = new URL(options.path, base);
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve) => {
    let connected = false;
    const req = request(
      url,
      {
        method: options.method ?? 'GET',
        agent: false,
        headers: {
          ...(options.key ? { 'x-api-key': options.key } : {}),
          ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => {
          text += chunk;
        });
        res.on('end', () =>
          resolve({ kind: 'response', status: res.statusCode ?? 0, text, headers: res.headers }),
        );
        res.on('error', (error: NodeJS.ErrnoException) =>
          resolve({ kind: 'error', code: error.code ?? error.message, connected }),
        );
      },
    );
    req.on('socket', (socket) => socket.on('connect', () => (connected = true)));
    req.on('error', (error: NodeJS.ErrnoException) =>
      resolve({ kind: 'error', code: error.code ?? error.message, connected }),
    );
    if (options.timeoutMs) req.setTimeout(options.timeoutMs, () => req.destroy(new Error('client timeout')));
    req.end(payload);
  });
}

/** The key the service prints on its first start with an empty database. */
export function defaultKeyFrom(output: string): string {
  const key = /\b(rk_[A-Za-z0-9_-]{43})\b/.exec(output)?.[1];
  if (!key) throw new Error(`no key in the service's first output:\n${output}`);
  return key;
}
