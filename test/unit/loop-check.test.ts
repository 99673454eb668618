// mockttp's loop check, replaced by one that compares both ends of a connection (src/proxy/loop-check.ts):
// a client that merely shares a local port with one of the proxy's upstream connections is no loop; the
// far end of one of them is. And the replacement is where mockttp's passthrough looks it up.
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { isOwnConnection, useExactLoopCheck } from '../../src/proxy/loop-check.js';

const socket = (local: [string, number], remote: [string, number]) =>
  ({
    localAddress: local[0],
    localPort: local[1],
    remoteAddress: remote[0],
    remotePort: remote[1],
  }) as Socket;

describe('the loop check', () => {
  // The proxy listens on 8080; it holds a connection from 127.0.0.1:40000 to an upstream on 3000.
  const outgoing = new Set([socket(['127.0.0.1', 40000], ['127.0.0.1', 3000])]);

  it('a client on loopback whose port equals that of an upstream connection is no loop', () => {
    expect(isOwnConnection(outgoing, socket(['127.0.0.1', 8080], ['127.0.0.1', 40000]))).toBe(false);
  });

  it("the far end of one of the proxy's own connections is a loop, however IPv4 is written", () => {
    const own = new Set([socket(['127.0.0.1', 40001], ['127.0.0.1', 8080])]);
    expect(isOwnConnection(own, socket(['127.0.0.1', 8080], ['127.0.0.1', 40001]))).toBe(true);
    expect(isOwnConnection(own, socket(['::ffff:127.0.0.1', 8080], ['::ffff:127.0.0.1', 40001]))).toBe(true);
  });

  it('a closed connection (no ports any more) is no loop', () => {
    const closed = new Set([{} as Socket]);
    expect(isOwnConnection(closed, socket(['127.0.0.1', 8080], ['127.0.0.1', 40001]))).toBe(false);
  });

  it("is the one mockttp's passthrough calls once in place", () => {
    useExactLoopCheck();
    const util = createRequire(import.meta.url)('mockttp/dist/util/socket-util') as { isSocketLoop: unknown };
    expect(util.isSocketLoop).toBe(isOwnConnection);
  });
});
