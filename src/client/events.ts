// Server-sent events as every client of the change stream reads them (the console, the proxy's rule
// feed): read with fetch, since EventSource cannot send the `x-api-key` header. Wherever the network
// cuts the text, the same events come out.

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

/** A stream's events, a chunk at a time (what arrived together, so that a reader can act once for it). */
export async function* eventChunks(body: ReadableStream<Uint8Array>): AsyncGenerator<StreamEvent[]> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      const { events, rest } = parseEvents(buffer + decoder.decode(value, { stream: true }));
      buffer = rest;
      if (events.length > 0) yield events;
    }
  } finally {
    reader.releaseLock();
  }
}
