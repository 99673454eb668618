// The proxy serves this machine unless told otherwise. mockttp listens on every interface, and a
// connection comes in by many ways (HTTP, CONNECT tunnels, WebSocket upgrades, TLS): the check is made
// once, on the connection itself, before any of them is read, so no way in is forgotten.
import type { Server, Socket } from 'node:net';

const REFUSAL = 'rulekeeper proxy serves this machine only; start it with --allow-remote to serve others\n';

export function isLoopback(address: string | undefined): boolean {
  return !!address && /^(127\.|::1$|::ffff:127\.)/.test(address);
}

/**
 * Puts the check in front of the server's own connection handling. Its 'connection' event is where
 * every accepted socket begins; listeners cannot be used for this (the server copies each of its
 * listeners onto its HTTP, HTTP/2 and TLS servers, which it feeds the same sockets), so the event
 * itself is intercepted. Sockets mockttp passes back in (CONNECT tunnels) were checked when accepted.
 */
export function refuseRemote(server: Server): void {
  const emit = server.emit;
  server.emit = function emitChecked(this: Server, event: string | symbol, ...args: unknown[]): boolean {
    const socket = args[0] as Socket | undefined;
    if (event === 'connection' && socket?.remoteAddress !== undefined && !isLoopback(socket.remoteAddress)) {
      refuse(socket);
      return true;
    }
    return (emit as (...all: unknown[]) => boolean).call(this, event, ...args);
  } as Server['emit'];
}

/** A 403 in HTTP (what nearly every client speaks first), then the connection is closed. */
function refuse(socket: Socket): void {
  socket.on('error', () => {});
  // Read and drop what the client sends, so that closing does not reset the connection before it has
  // read the answer.
  socket.resume();
  socket.setTimeout(10_000, () => socket.destroy());
  socket.end(
    `HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(REFUSAL)}\r\nconnection: close\r\n\r\n${REFUSAL}`,
  );
}
