// A fetch whose answers cannot be larger than the caller allows: the runtime trusts the server with
// its rules, not with its memory. A JSON answer is read whole (openapi-fetch parses it), so its size is
// checked as it arrives; the change stream is returned as it is (its reader bounds each event).

/** The largest JSON answer the runtime reads by default: a page of 1,000 large rules fits. */
export const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

export class AnswerTooLargeError extends Error {
  constructor(url: string, limit: number) {
    super(`${new URL(url).pathname} answered more than ${limit} bytes`);
  }
}

export function boundedFetch(inner: typeof fetch, maxBytes: number): typeof fetch {
  return async (input, init) => {
    const response = await inner(input, init);
    const type = response.headers.get('content-type') ?? '';
    if (!response.body || type.startsWith('text/event-stream')) return response;
    const url = input instanceof Request ? input.url : String(input);
    const declared = Number(response.headers.get('content-length'));
    if (declared > maxBytes) {
      await response.body.cancel().catch(() => {});
      throw new AnswerTooLargeError(url, maxBytes);
    }
    const reader = response.body.getReader();
    const parts: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > maxBytes) {
        await reader.cancel().catch(() => {});
        throw new AnswerTooLargeError(url, maxBytes);
      }
      parts.push(value);
    }
    const body = new Uint8Array(size);
    let at = 0;
    for (const part of parts) {
      body.set(part, at);
      at += part.byteLength;
    }
    const { status, statusText, headers } = response;
    return new Response(body, { status, statusText, headers });
  };
}
