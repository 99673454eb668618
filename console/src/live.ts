// Follows GET /v1/changes/stream (server-sent events) so that a change made elsewhere shows up.
// EventSource cannot send the `x-api-key` header, so the stream is read with fetch, through the
// typed client, and its events parsed by the client's reader. It resumes after the last revision it saw.
import { useEffect, useRef, useState } from 'preact/hooks';
import { eventChunks } from '../../src/client/events.js';
import type { RulekeeperClient } from './api.js';

export type LiveState = 'connecting' | 'live' | 'reconnecting';

/** Events after which what the panel shows may be out of date: a change, and the two that say read everything again. */
const REFRESHING = new Set(['change', 'bulk', 'reset']);

/**
 * Reads a change stream's body to its end: `onId` with every event id (where to resume), `onRefresh`
 * once per chunk that holds a change, a `bulk` (a revision too large to list: an import) or a `reset`.
 * One read for what arrived together: an import of a thousand records is one refresh.
 */
export async function readChangeStream(
  body: NonNullable<Response['body']>,
  handlers: { onId(id: string): void; onRefresh(): void },
): Promise<void> {
  for await (const events of eventChunks(body)) {
    for (const event of events) if (event.id) handlers.onId(event.id);
    if (events.some((event) => REFRESHING.has(event.event))) handlers.onRefresh();
  }
}

const RETRY_MS = [1000, 2000, 5000, 10000];

/**
 * Calls `onChange` for every change to the workspace (and on `bulk` and `reset`, when the panel must
 * read everything again), until the component goes away.
 */
export function useLiveChanges(client: RulekeeperClient, onChange: () => void): LiveState {
  const [state, setState] = useState<LiveState>('connecting');
  const latest = useRef(onChange);
  latest.current = onChange;

  useEffect(() => {
    const controller = new AbortController();
    let lastId: string | undefined;
    let failures = 0;

    async function follow(): Promise<void> {
      const { response } = await client.GET('/v1/changes/stream', {
        params: { header: lastId ? { 'Last-Event-ID': lastId } : {} },
        parseAs: 'stream',
        signal: controller.signal,
      });
      if (!response.ok || !response.body) throw new Error(`stream answered ${response.status}`);
      setState('live');
      failures = 0;
      await readChangeStream(response.body, {
        onId: (id) => {
          lastId = id;
        },
        onRefresh: () => latest.current(),
      });
    }

    (async () => {
      while (!controller.signal.aborted) {
        try {
          await follow();
        } catch {
          // Reconnected below; the panel says so meanwhile.
        }
        if (controller.signal.aborted) return;
        setState('reconnecting');
        const wait = RETRY_MS[Math.min(failures++, RETRY_MS.length - 1)];
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    })();
    return () => controller.abort();
  }, [client]);
  return state;
}
