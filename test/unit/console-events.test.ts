// The console reads the change stream with fetch (EventSource cannot send the key), so it parses
// server-sent events itself: wherever the network cuts the text, the same events come out.
import { describe, expect, it } from 'vitest';
import { readChangeStream } from '../../console/src/live.js';
import { parseRoute } from '../../console/src/route.js';
import { parseEvents, type StreamEvent } from '../../src/client/events.js';

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

describe('readChangeStream', () => {
  async function read(...chunks: string[]) {
    const ids: string[] = [];
    let refreshes = 0;
    await readChangeStream(body(...chunks), {
      onId: (id) => ids.push(id),
      onRefresh: () => refreshes++,
    });
    return { ids, refreshes };
  }

  it('refreshes on a bulk event (a revision too large to list) and resumes after its id', async () => {
    expect(
      await read(': open\nid: 4\n\n', 'event: bulk\nid: 5\ndata: {"revision":5,"changes":20000}\n\n'),
    ).toEqual({
      ids: ['4', '5'],
      refreshes: 1,
    });
  });

  it('refreshes once per chunk of changes, on reset, and never on heartbeats', async () => {
    expect(await read(STREAM, ': heartbeat\n\n')).toEqual({ ids: ['3'], refreshes: 1 });
    expect(await read(': heartbeat\n\n', ': heartbeat\n\n')).toEqual({ ids: [], refreshes: 0 });
    expect(await read('event: reset\nid: 9\ndata: {"latest":9}\n\n')).toEqual({ ids: ['9'], refreshes: 1 });
  });
});

describe('parseRoute', () => {
  it('maps addresses to screens, with unknown ones on the rule list', () => {
    expect(parseRoute('')).toEqual({ page: 'rules' });
    expect(parseRoute('#/groups')).toEqual({ page: 'groups' });
    expect(parseRoute('#/rules/new')).toEqual({ page: 'rule', ruleId: null });
    expect(parseRoute('#/rules/Redirect_a1b2c')).toEqual({ page: 'rule', ruleId: 'Redirect_a1b2c' });
    expect(parseRoute('#/nowhere')).toEqual({ page: 'rules' });
  });
});
