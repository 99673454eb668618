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
  if (typeof question.url !== 'string' || typeof question.method !== 'string') return;
  void ask<ResponseAnswer>({ kind: 'response', url: question.url, method: question.method }).then(
    (answer) => {
      const reply: PageAnswer = { id: question.id, response: answer?.response ?? null };
      window.dispatchEvent(new CustomEvent(ANSWER_EVENT, { detail: JSON.stringify(reply) }));
    },
  );
});
