// The runtime reads the change stream with fetch (EventSource cannot send the key), so it parses
// server-sent events itself: wherever the network cuts the text, the same events come out, and an
// event without end is refused rather than held. Also the console's routes.
import { describe, expect, it } from 'vitest';
import { parseRoute } from '../../console/src/route.js';
import { EventTooLargeError, eventChunks, parseEvents, type StreamEvent } from '../../src/client/events.js';

const STREAM =
  ': keep-alive\n\n' +
  'event: change\ndata: {"revision":3,"id":"Redirect_a1b2c"}\n\n' +
  'event: change\nid: 3\ndata: {"revision":3,"id":"Group_k3v9x"}\n\n' +
  'event: reset\r\ndata: {"latest":9}\r\n\r\n' +
  'data: line one\ndata: line two\n\n';

const EXPECTED: StreamEvent[] = [
  { event: 'change', data: '{"revision":3,"id":"Redirect_a1b2c"}' },
  { event: 'change', id: '3', data: '{"revision":3,"id":"Group_k3v9x"}' },
  { event: 'reset', data: '{"latest":9}' },
  { event: 'message', data: 'line one\nline two' },
];

describe('parseEvents', () => {
  it('reads events, ids and multi-line data, and skips comments', () => {
    expect(parseEvents(STREAM)).toEqual({ events: EXPECTED, rest: '' });
  });

  it('answers the same events wherever the text is cut into chunks', () => {
    for (let cut = 0; cut <= STREAM.length; cut += 1) {
      const first = parseEvents(STREAM.slice(0, cut));
      const second = parseEvents(first.rest + STREAM.slice(cut));
      expect([...first.events, ...second.events], `cut at ${cut}`).toEqual(EXPECTED);
      expect(second.rest).toBe('');
    }
  });
});

/** A response body that arrives in these chunks. */
function body(...chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

describe('eventChunks', () => {
  async function read(chunks: string[], limit?: number) {
    const out: StreamEvent[][] = [];
    for await (const events of eventChunks(body(...chunks), limit)) out.push(events);
    return out;
  }

  it('answers what arrived together as one chunk, and nothing for heartbeats', async () => {
    const chunks = await read([STREAM, ': heartbeat\n\n', 'event: bulk\nid: 5\ndata: {}\n\n']);
    expect(chunks).toEqual([EXPECTED, [{ event: 'bulk', id: '5', data: '{}' }]]);
  });

  it('gives up on an event longer than its bound instead of holding it', async () => {
    const endless = ['event: change\ndata: ', 'x'.repeat(600), 'x'.repeat(600)];
    await expect(read(endless, 1000)).rejects.toBeInstanceOf(EventTooLargeError);
    expect(await read(['data: ', 'x'.repeat(900), '\n\n'], 1000)).toHaveLength(1);
  });
});

describe('parseRoute', () => {
  it('maps addresses to screens, with unknown ones on the rule list', () => {
    expect(parseRoute('')).toEqual({ page: 'rules' });
    expect(parseRoute('#/groups')).toEqual({ page: 'groups' });
    expect(parseRoute('#/members')).toEqual({ page: 'members' });
    expect(parseRoute('#/keys')).toEqual({ page: 'keys' });
    expect(parseRoute('#/activity')).toEqual({ page: 'activity' });
    expect(parseRoute('#/test-suites')).toEqual({ page: 'test-suites' });
    expect(parseRoute('#/rules/new')).toEqual({ page: 'rule', ruleId: null });
    expect(parseRoute('#/rules/Redirect_a1b2c')).toEqual({ page: 'rule', ruleId: 'Redirect_a1b2c' });
    expect(parseRoute('#/nowhere')).toEqual({ page: 'rules' });
  });
});
