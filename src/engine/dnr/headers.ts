// Headers: Chrome's modifyHeaders. What it can say exactly: a request or response header removed, a
// response header added (append). What it cannot: Modify (Chrome's `set` also sets an absent header,
// where Modify does nothing), Add to a request header (Chrome appends to request headers only from
// version 128, and to a few of them; before that, a rule that tries is refused with all the others
// installed with it, and the extension supports Chromium 120+; a set would replace a value the
// request has), and values calling Requestly's functions (evaluated per request by the engine).
// Those are left out and reported.
import type { DnrHeader } from '../../model/browser-rule.js';
import type { HeadersPair } from '../../model/rule-types/headers.js';
import { type PairTranslator, withCondition } from './pair-rule.js';

const FUNCTION_CALL = /rq_request_initiator_origin\(\)|rq_rand\(/;

type Modification = { header: string; type: string; value?: string };

function translate(
  target: 'Request' | 'Response',
  { header, type, value }: Modification,
): DnrHeader | string {
  const what = `${target} ${type} ${header}`;
  if (value !== undefined && FUNCTION_CALL.test(value))
    return `${what}: its value calls a function the engine evaluates per request`;
  if (type === 'Remove') return { header, operation: 'remove' };
  if (type === 'Modify')
    return `${what}: Chrome's set would also add the header when it is absent, where Modify leaves it out`;
  if (target === 'Response') return { header, operation: 'append', value: value ?? '' };
  return `${what}: Chrome before version 128 cannot add to a request header (and after, only to a few); a set would replace a value the request has`;
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
        if (typeof translated === 'string') left.push(translated);
        else out.push(translated);
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
