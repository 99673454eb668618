// mockttp's passthrough refuses a request it takes for a loop (one it sent to itself) with a 500. Its
// check (isSocketLoop, mockttp 4.4.2) compares the client's address and port with the local address and
// port of each of its own upstream connections, and nothing else. On loopback both ends share 127.0.0.1,
// and Linux reuses a local port for connections to different destinations: under 50 connections a
// client's port often equals that of a connection the proxy holds to a loopback upstream, and that
// client was answered 500 (issue 40). A connection is the other end of one of the proxy's own only if
// the two match both ways: its remote end is the outgoing one's local end, and its local end (the
// proxy's listening port) is the outgoing one's remote end. The check is replaced by that one where
// mockttp looks it up on each request (a property of its module's exports), and checked at start-up
// like the other mockttp insides this proxy relies on (ip-tunnels.ts).
import { createRequire } from 'node:module';
import type { Socket } from 'node:net';

type LoopCheck = (outgoing: Set<Socket>, incoming: Socket) => boolean;

const require = createRequire(import.meta.url);

/** IPv4 written as IPv6 (::ffff:127.0.0.1) compares equal to itself written plainly. */
const plain = (address: string | undefined) => address?.replace(/^::ffff:/i, '');

/** Whether `incoming` is the far end of one of the `outgoing` connections. */
export const isOwnConnection: LoopCheck = (outgoing, incoming) => {
  for (const socket of outgoing) {
    if (
      socket.localPort !== undefined &&
      socket.localPort === incoming.remotePort &&
      socket.remotePort === incoming.localPort &&
      plain(socket.localAddress) === plain(incoming.remoteAddress) &&
      plain(socket.remoteAddress) === plain(incoming.localAddress)
    )
      return true;
  }
  return false;
};

/** Puts isOwnConnection where mockttp's passthrough looks its loop check up, or fails loudly. */
export function useExactLoopCheck(): void {
  const util = require('mockttp/dist/util/socket-util') as { isSocketLoop?: LoopCheck };
  const steps = require('mockttp/dist/rules/requests/request-step-impls') as {
    PassThroughStepImpl?: unknown;
  };
  if (typeof util.isSocketLoop !== 'function' || typeof steps.PassThroughStepImpl !== 'function')
    throw new Error(
      "mockttp's loop check is not where src/proxy/loop-check.ts expects it (after an upgrade of mockttp?)",
    );
  util.isSocketLoop = isOwnConnection;
}
