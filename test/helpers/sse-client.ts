// A minimal server-sent events client for tests: reads a stream with fetch, parses its events and
// comments, and waits (with a deadline) for a condition on what arrived.
export interface SseEvent {
  event?: string;
  id?: string;
  data?: string;
  /** A comment line (`: …`) alone in its block. */
  comment?: string;
}

export interface SseClient {
  status: number;
  headers: Headers;
  events: SseEvent[];
  /** Parsed `data` of the `change` events, in order. */
  changes(): { revision: number; id: string; change: string; objectType: string }[];
  /** True once the server ended the stream. */
  ended(): boolean;
  waitFor(condition: (client: SseClient) => boolean, timeoutMs?: number, what?: string): Promise<void>;
  close(): void;
}

export async function openStream(url: string, headers: Record<string, string>): Promise<SseClient> {
  const controller = new AbortController();
  const response = await fetch(url, { headers, signal: controller.signal });
  const events: SseEvent[] = [];
  let ended = false;
  const reader = response.body?.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  void (async () => {
    try {
      for (;;) {
        const chunk = await reader?.read();
        if (!chunk || chunk.done) break;
        buffer += decoder.decode(chunk.value, { stream: true });
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const event: SseEvent = {};
          for (const line of block.split('\n')) {
            const colon = line.indexOf(':');
            const field = line.slice(0, colon);
            const value = line.slice(colon + 1).trimStart();
            if (field === '') event.comment = value;
            else if (field === 'event' || field === 'id' || field === 'data') event[field] = value;
          }
          events.push(event);
        }
      }
    } catch {
      // aborted by close()
    }
    ended = true;
  })();

  const client: SseClient = {
    status: response.status,
    headers: response.headers,
    events,
    changes: () => events.filter((e) => e.event === 'change').map((e) => JSON.parse(e.data ?? '{}')),
    ended: () => ended,
    async waitFor(condition, timeoutMs = 5000, what = 'the condition') {
      const deadline = Date.now() + timeoutMs;
      while (!condition(client)) {
        if (Date.now() > deadline) {
          throw new Error(`timed out waiting for ${what}; events so far: ${JSON.stringify(events)}`);
        }
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
    close: () => controller.abort(),
  };
  return client;
}
