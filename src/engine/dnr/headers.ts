// Headers: Chrome's modifyHeaders. Exact: a request or response header removed, a response header
// added (append). Close, so written and reported `partial` with the difference (decision 22: a rule
// that can act in the browser is not left out for want of an exact translation):
// - Add to a request header becomes `set`, as Requestly's extension writes it: Chrome appends to request
//   headers only from version 128 and then only to a few of them, so `set` is the one operation every
//   supported Chrome (128 and later) takes for any header; it replaces a value the request already has,
//   where the engine adds one.
// - Modify becomes `set`: Chrome's set also adds the header when it is absent, where Modify leaves it out.
// What cannot act at all is left out and reported: values calling Requestly's functions (evaluated per
// request by the engine; Chrome's rules hold one fixed value).
import type { DnrHeader } from '../../model/browser-rule.js';
import type { HeadersPair } from '../../model/rule-types/headers.js';
import { type PairTranslator, withCondition } from './pair-rule.js';

const FUNCTION_CALL = /rq_request_initiator_origin\(\)|rq_rand\(/;

type Modification = { header: string; type: string; value?: string };

/** A modification in Chrome's terms: written (with how it differs, if it does), or why it cannot be. */
type Translated = { header: DnrHeader; differs?: string } | { refused: string };

function translate(target: 'Request' | 'Response', { header, type, value }: Modification): Translated {
  const what = `${target} ${type} ${header}`;
  if (value !== undefined && FUNCTION_CALL.test(value))
    return { refused: `${what}: its value calls a function the engine evaluates per request` };
  if (type === 'Remove') return { header: { header, operation: 'remove' } };
  const set: DnrHeader = { header, operation: 'set', value: value ?? '' };
  if (type === 'Modify')
    return {
      header: set,
      differs: `${what}: written as Chrome's set, which also adds the header when it is absent, where Modify leaves it out`,
    };
  if (target === 'Response') return { header: { header, operation: 'append', value: value ?? '' } };
  return {
    header: set,
    differs: `${what}: written as Chrome's set (as Requestly's extension does), which replaces a value the request already has, where the engine adds one`,
  };
}

export const headersPair: PairTranslator = (pair) => {
  const requestHeaders: DnrHeader[] = [];
  const responseHeaders: DnrHeader[] = [];
  const left: string[] = [];
  for (const set of (pair as HeadersPair).modifications) {
    for (const [target, list, out] of [
      ['Request', set.Request, requestHeaders],
      ['Response', set.Response, responseHeaders],
    ] as const) {
      for (const modification of list ?? []) {
        const translated = translate(target, modification);
        if ('refused' in translated) {
          left.push(translated.refused);
          continue;
        }
        out.push(translated.header);
        if (translated.differs) left.push(translated.differs);
      }
    }
  }
  if (requestHeaders.length === 0 && responseHeaders.length === 0) return { kind: 'refused', reasons: left };
  const translated = withCondition(pair, {
    type: 'modifyHeaders',
    ...(requestHeaders.length > 0 ? { requestHeaders } : {}),
    ...(responseHeaders.length > 0 ? { responseHeaders } : {}),
  });
  return translated.kind === 'rules' ? { ...translated, left } : translated;
};
