// Server-sent events as the change stream's one reader (rulekeeper/runtime) reads them: read with
// fetch, since EventSource cannot send the `x-api-key` header. Wherever the network cuts the text, the
// same events come out.

export interface StreamEvent {
  event: string;
  id?: string;
  data: string;
}

/** Splits server-sent events out of text, answering the events and what is left of an unfinished one. */
export function parseEvents(buffer: string): { events: StreamEvent[]; rest: string } {
  // A \r at the very end may be the first half of a \r\n: kept back until the next chunk says.
  const held = buffer.endsWith('\r') ? '\r' : '';
  const blocks = buffer
    .slice(0, buffer.length - held.length)
    .replace(/\r\n?/g, '\n')
    .split('\n\n');
  const rest = (blocks.pop() ?? '') + held;
  const events: StreamEvent[] = [];
  for (const block of blocks) {
    const event: StreamEvent = { event: 'message', data: '' };
    let hasField = false;
    for (const line of block.split('\n')) {
      if (line === '' || line.startsWith(':')) continue; // a keep-alive comment
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      hasField = true;
      if (field === 'event') event.event = value;
      else if (field === 'id') event.id = value;
      else if (field === 'data') event.data = event.data ? `${event.data}\n${value}` : value;
    }
    if (hasField) events.push(event);
  }
  return { events, rest };
}

/** The longest event a reader keeps by default: the service's largest is a few hundred bytes. */
export const MAX_EVENT_CHARS = 1024 * 1024;

/** An event longer than the reader's bound: the stream is not one to trust. */
export class EventTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`the change stream sent an event longer than ${limit} characters`);
  }
}

/**
 * A stream's events, a chunk at a time (what arrived together, so that a reader can act once for it).
 * An unfinished event longer than `maxEventChars` ends the reading with EventTooLargeError: a server
 * that never ends its event would otherwise fill the reader's memory.
 */
export async function* eventChunks(
  body: ReadableStream<Uint8Array>,
  maxEventChars = MAX_EVENT_CHARS,
): AsyncGenerator<StreamEvent[]> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      const { events, rest } = parseEvents(buffer + decoder.decode(value, { stream: true }));
      if (rest.length > maxEventChars) throw new EventTooLargeError(maxEventChars);
      buffer = rest;
      if (events.length > 0) yield events;
    }
  } finally {
    // Cancelled, not only released: a reader that stops early (a bad event, a close) frees the connection.
    await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
