// What the document's schemas say only in words (src/plugins/openapi-limits.ts), kept in a generated
// request so that a request valid by the document is valid for the service too.
import type { FuzzRequest } from './document-fuzz.js';

/** The constraints stated in words, kept: each repair leaves the request valid by the document. */
export function keepWords(request: FuzzRequest): void {
  const body = request.body as any;
  // A new key's expiry is in the future: a past one is moved as far after now as it was after 0.
  if (request.operation.template === '/v1/keys' && typeof body?.expiresAt === 'number') {
    const now = Date.now() + 60_000;
    if (body.expiresAt <= now) body.expiresAt += now;
  }
  // A webhook's URL is an http(s) URL whose host is a public address: one written as such (no DNS asked).
  if (request.operation.template.startsWith('/v1/webhooks') && typeof body?.url === 'string')
    body.url = `https://203.0.113.10/${encodeURIComponent(body.url.slice(0, 100))}`;
  const rules: any[] =
    request.operation.template === '/v1/import' && Array.isArray(body)
      ? body.filter((r) => r?.ruleType)
      : request.operation.template === '/v1/trace'
        ? (body?.rules ?? [])
        : [body];
  for (const rule of rules) {
    if (!rule || !Array.isArray(rule.pairs)) continue;
    // A PUT may leave ruleType out: a rule id begins with its type.
    const ruleType = rule.ruleType ?? request.path.ruleId?.split('_')[0];
    const ids = new Set<unknown>();
    for (const pair of rule.pairs) {
      if (pair?.id !== undefined && ids.has(pair.id)) delete pair.id;
      ids.add(pair?.id);
      if (ruleType === 'Headers') keepHeadersWords(pair);
      if (ruleType === 'QueryParam') keepQueryParamWords(pair);
    }
  }
}

/** Headers: a value unless removing; at least one change in all. */
function keepHeadersWords(pair: any): void {
  if (!Array.isArray(pair?.modifications)) return;
  let count = 0;
  for (const set of pair.modifications)
    for (const target of ['Request', 'Response'])
      for (const change of set?.[target] ?? []) {
        count += 1;
        if (change.type !== 'Remove' && change.value === undefined) change.value = 'v';
      }
  if (count > 0) return;
  if (pair.modifications.length === 0) pair.modifications.push({});
  pair.modifications[0].Request = [{ header: 'X-Fuzz', type: 'Add', value: 'v' }];
}

/** QueryParam: a non-empty param unless removing all; a value when adding. */
function keepQueryParamWords(pair: any): void {
  for (const change of Array.isArray(pair?.modifications) ? pair.modifications : []) {
    if (change?.type !== 'Remove All' && !change?.param) change.param = 'p';
    if (change?.type === 'Add' && change.value === undefined) change.value = 'v';
  }
}
