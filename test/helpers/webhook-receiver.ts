// A real HTTP receiver of webhook deliveries on loopback: it records every request (headers and body)
// and answers as the test's handler says (by default 200 "ok").
import { createHmac } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  /** How the next requests are answered; the body has been read when it is called. */
  handler: (request: IncomingMessage, response: ServerResponse, received: Received) => void;
  /** Resolves once `count` requests have arrived (their bodies read). */
  arrived(count: number): Promise<void>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const waiters: { count: number; resolve: () => void }[] = [];
  const receiver: Receiver = {
    url: '',
    port: 0,
    received: [],
    handler: (_request, response) => response.end('ok'),
    arrived(count) {
      if (receiver.received.length >= count) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ count, resolve }));
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close').catch(() => {});
    },
  };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const received = { headers: request.headers, body: Buffer.concat(chunks).toString('utf8') };
      receiver.received.push(received);
      receiver.handler(request, response, received);
      for (const waiter of waiters.filter((w) => receiver.received.length >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  receiver.port = (server.address() as AddressInfo).port;
  receiver.url = `http://127.0.0.1:${receiver.port}/hook`;
  return receiver;
}

/** Timers a test fires itself: nothing runs until `fire` says so. */
export function manualTimers() {
  const pending = new Map<number, { fn: () => void; ms: number }>();
  let next = 0;
  return {
    setTimeout(fn: () => void, ms: number): unknown {
      next += 1;
      pending.set(next, { fn, ms });
      return next;
    },
    clearTimeout(handle: unknown): void {
      pending.delete(handle as number);
    },
    /** Runs every timer set for `ms` milliseconds (the delivery deadlines, say), and forgets them. */
    fire(ms: number): number {
      const due = [...pending].filter(([, t]) => t.ms === ms);
      for (const [id, timer] of due) {
        pending.delete(id);
        timer.fn();
      }
      return due.length;
    },
  };
}

/**
 * What a receiver does to trust a delivery: recompute the HMAC-SHA256 of `t.body` with its secret and
 * compare it with the `Rulekeeper-Signature` header (`t=…,v1=…`).
 */
export function signatureVerifies(secret: string, header: unknown, body: string): boolean {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(header));
  return m !== null && createHmac('sha256', secret).update(`${m[1]}.${body}`).digest('hex') === m[2];
}
