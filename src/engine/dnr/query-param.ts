// QueryParam: Chrome's redirect with a query transform. Chrome applies one transform, not a sequence,
// so the modifications are read for their net effect: a Remove All and the Adds after it are the whole
// new query; otherwise each parameter may be changed once (added or removed).
import type { QueryParamPair } from '../../model/rule-types/query-param.js';
import { type PairTranslation, type PairTranslator, withCondition } from './pair-rule.js';

/** Text that the engine writes as it is (it percent-encodes the rest, which Chrome may not). */
const unreserved = (text: string) => encodeURIComponent(text) === text;

export const queryParamPair: PairTranslator = (pair): PairTranslation => {
  const { modifications } = pair as QueryParamPair;
  const lastRemoveAll = modifications.map((m) => m.type).lastIndexOf('Remove All');
  const effective = modifications.slice(lastRemoveAll + 1);
  const refused = (reason: string): PairTranslation => ({ kind: 'refused', reasons: [reason] });
  const seen = new Set<string>();
  // Close, so written and reported (decision 22): Chrome has no "add only when absent".
  const ignores: string[] = [];
  for (const { param = '', type, value = '', actionWhenParamExists } of effective) {
    if (actionWhenParamExists === 'Ignore' && type === 'Add')
      ignores.push(
        `Add ${param} (actionWhenParamExists: Ignore): when the request has the parameter, Chrome replaces its value, where the engine leaves it`,
      );
    if (seen.has(param)) return refused(`Chrome applies one change per parameter; ${param} is changed twice`);
    seen.add(param);
    if (!unreserved(param) || !unreserved(value))
      return refused(
        `the parameter ${param} or its value needs percent-encoding, which Chrome's transform does not do as the engine does`,
      );
  }
  const adds = effective.filter((m) => m.type === 'Add');
  if (lastRemoveAll >= 0) {
    // After a Remove All no parameter exists: an Ignore adds as any Add does.
    const query = adds.map((m) => `${m.param}=${m.value ?? ''}`).join('&');
    return withCondition(pair, {
      type: 'redirect',
      redirect: { transform: { query: query === '' ? '' : `?${query}` } },
    });
  }
  const removes = effective.filter((m) => m.type === 'Remove').map((m) => m.param ?? '');
  const translated = withCondition(pair, {
    type: 'redirect',
    redirect: {
      transform: {
        queryTransform: {
          ...(removes.length > 0 ? { removeParams: removes } : {}),
          ...(adds.length > 0
            ? { addOrReplaceParams: adds.map((m) => ({ key: m.param ?? '', value: m.value ?? '' })) }
            : {}),
        },
      },
    },
  });
  // Measured in Chromium: addOrReplaceParams sets the first occurrence and keeps the repeats.
  // (An Ignore's parameter, when present, is left by the engine: its difference is said above.)
  const repeats = adds
    .filter((m) => m.actionWhenParamExists !== 'Ignore')
    .map(
      (m) =>
        `Add ${m.param}: when the request repeats the parameter, Chrome keeps the repeats the engine removes`,
    );
  return translated.kind === 'rules' ? { ...translated, left: [...ignores, ...repeats] } : translated;
};
