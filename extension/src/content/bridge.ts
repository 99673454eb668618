// The isolated-world content script: asks the worker which Script rules act on this document and hands
// their scripts and styles to the page-world script to inject (an inline script added from this world
// would be held to the extension's own policy, which allows none), and carries the page-world patch's questions about Response rules
// to the worker and the answers back.
import {
  ANSWER_EVENT,
  ASK_EVENT,
  type ContentQuestion,
  type DocumentAnswer,
  INJECT_EVENT,
  type PageAnswer,
  type PageAsk,
  type ResponseAnswer,
} from './messages.js';

/** As long as a URL a trace takes: a longer one is no request a rule was written for. */
const MAX_URL_LENGTH = 16_384;

function ask<T>(question: ContentQuestion): Promise<T | undefined> {
  return chrome.runtime.sendMessage<ContentQuestion, T>(question).catch(() => undefined);
}

void ask<DocumentAnswer>({ kind: 'document' }).then((answer) => {
  if (answer && answer.scripts.length > 0)
    window.dispatchEvent(new CustomEvent(INJECT_EVENT, { detail: JSON.stringify(answer.scripts) }));
});

window.addEventListener(ASK_EVENT, (event) => {
  const detail = (event as CustomEvent<unknown>).detail;
  if (typeof detail !== 'string') return;
  let question: PageAsk;
  try {
    question = JSON.parse(detail) as PageAsk;
  } catch {
    return;
  }
  // The page can send anything here: only a URL and method of sane size go on to the worker.
  const sane = (text: unknown, limit: number) => typeof text === 'string' && text.length <= limit;
  if (!sane(question.url, MAX_URL_LENGTH) || !sane(question.method, 16)) return;
  void ask<ResponseAnswer>({ kind: 'response', url: question.url, method: question.method }).then(
    (answer) => {
      const reply: PageAnswer = { id: question.id, response: answer?.response ?? null };
      window.dispatchEvent(new CustomEvent(ANSWER_EVENT, { detail: JSON.stringify(reply) }));
    },
  );
});
