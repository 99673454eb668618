// A change stream whose client stops reading right after the answer's head and first block, as an
// attacker's would: the server's writes pile up behind it. Reading can be resumed, to see what the
// server sent before it gave up, and whether it ended the stream.
import { connect, type Socket } from 'node:net';

export interface StalledStream {
  status: number;
  /** The revision the stream opened at (its first block's `id:`). */
  openedAt: number;
  /**
   * Resumes reading: resolves with everything received after the head, and whether the server ended
   * the stream, once it did or `timeoutMs` passed.
   */
  drain(timeoutMs: number): Promise<{ ended: boolean; body: string }>;
  /** Whether the server has ended the stream (known only once reading resumed). */
  ended(): boolean;
  destroy(): void;
}

export function openStalledStream(base: string, key: string, lastEventId?: string): Promise<StalledStream> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(Number(url.port), url.hostname);
    let text = '';
    let ended = false;
    socket.setEncoding('utf8');
    socket.on('error', () => {});
    socket.on('close', () => {
      ended = true;
    });
    socket.on('connect', () => {
      socket.write(
        `GET /v1/changes/stream HTTP/1.1\r\nHost: ${url.host}\r\nx-api-key: ${key}\r\n` +
          `${lastEventId === undefined ? '' : `last-event-id: ${lastEventId}\r\n`}\r\n`,
      );
    });
    const onHead = (chunk: string) => {
      text += chunk;
      const head = text.indexOf('\r\n\r\n');
      // A refusal is read whole; a stream once its first block (the open comment) is in.
      if (head < 0 || (text.startsWith('HTTP/1.1 200') && !text.includes('\n\n', head + 4))) return;
      socket.off('data', onHead);
      socket.pause();
      const status = Number(text.slice(9, 12));
      let body = text.slice(head + 4);
      resolve({
        status,
        openedAt: Number(/^id: (\d+)$/m.exec(body)?.[1]),
        drain(timeoutMs) {
          socket.on('data', (more: string) => {
            body += more;
          });
          socket.resume();
          return new Promise((done) => {
            const answer = () => done({ ended, body });
            if (ended) return answer();
            const timer = setTimeout(answer, timeoutMs);
            socket.on('close', () => {
              clearTimeout(timer);
              answer();
            });
          });
        },
        ended: () => ended,
        destroy: () => socket.destroy(),
      });
    };
    socket.on('data', onHead);
    socket.on('close', () => reject(new Error(`the connection closed before an answer: ${text}`)));
  });
}
