// What a trace answer means for the request, change by change: the URL before and after, each request
// header added, changed or removed (the headers sent compared with the headers the rules leave), each
// response header change, the response served, the body sent, the delay, the scripts, the cancel. Each
// change names the rules that made it, so that "why?" is answered next to "what?".
import type { paths } from '../api.js';

export type TraceData = paths['/v1/trace']['post']['responses'][200]['content']['application/json']['data'];
export type TraceRequest = paths['/v1/trace']['post']['requestBody']['content']['application/json'];
type Outcome = TraceData['outcome'];

export type HeaderValues = Record<string, string | string[]>;

export type Change =
  | { kind: 'cancelled'; by: string[] }
  | { kind: 'url'; before: string; after: string; by: string[] }
  | {
      kind: 'request-header';
      change: 'added' | 'changed' | 'removed';
      name: string;
      before?: string;
      after?: string;
      by: string[];
    }
  | {
      kind: 'response-header';
      change: 'Add' | 'Modify' | 'Remove';
      name: string;
      value?: string;
      by: string[];
    }
  | {
      kind: 'response';
      status: number;
      statusText?: string;
      contentType: string;
      body: string;
      code: boolean;
      withoutRequest: boolean;
      by: string[];
    }
  | { kind: 'request-body'; body: string; code: boolean; by: string[] }
  | { kind: 'delay'; ms: number; by: string[] }
  | { kind: 'script'; type: string; codeType: string; loadTime: string; value: string; by: string[] };

const joined = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(', ') : value);

/** Header values by lower-case name, as the engine keys them. */
function byLowerName(headers: HeaderValues): Map<string, string> {
  const map = new Map<string, string>();
  for (const [name, value] of Object.entries(headers)) {
    const key = name.toLowerCase();
    const text = joined(value) ?? '';
    map.set(key, map.has(key) ? `${map.get(key)}, ${text}` : text);
  }
  return map;
}

/** The content type the proxy gives a response it serves itself: JSON when the body parses as JSON. */
export function servedContentType(body: string): string {
  try {
    JSON.parse(body);
    return 'application/json';
  } catch {
    return 'text/plain';
  }
}

/** The rules' names (or ids) whose pairs' effects carry `key`, among those that acted. */
function actedWith(trace: TraceData, has: (effect: Record<string, unknown>) => boolean): string[] {
  return trace.rules
    .filter((rule) => rule.acted && rule.pairs.some((pair) => pair.effect && has(pair.effect)))
    .map((rule) => rule.name || rule.ruleId);
}

function nameOf(trace: TraceData): (ruleId: string) => string {
  const names = new Map(trace.rules.map((rule) => [rule.ruleId, rule.name || rule.ruleId]));
  return (ruleId) => names.get(ruleId) ?? ruleId;
}

/** Every change the rules make to the request `sent` (its headers as sent), in the order a request meets them. */
export function changesOf(trace: TraceData, sent: HeaderValues = {}): Change[] {
  const outcome: Outcome = trace.outcome;
  const name = nameOf(trace);
  const changes: Change[] = [];
  if (outcome.cancelled) {
    // A Cancel that acts wins over every rule: nothing else happens.
    return [{ kind: 'cancelled', by: actedWith(trace, (effect) => effect.cancelled === true) }];
  }
  if (outcome.delayMs > 0)
    changes.push({
      kind: 'delay',
      ms: outcome.delayMs,
      by: actedWith(trace, (effect) => 'delayMs' in effect),
    });
  if (outcome.url !== trace.request.url) {
    changes.push({
      kind: 'url',
      before: trace.request.url,
      after: outcome.url,
      by: actedWith(trace, (effect) => typeof effect.url === 'string' && !('unchanged' in effect)),
    });
  }
  const before = byLowerName(sent);
  const after = byLowerName(outcome.requestHeaders);
  const headerRules = actedWith(trace, (effect) => 'userAgent' in effect || 'requestHeaders' in effect);
  for (const [header, value] of after) {
    const old = before.get(header);
    if (old === undefined)
      changes.push({ kind: 'request-header', change: 'added', name: header, after: value, by: headerRules });
    else if (old !== value)
      changes.push({
        kind: 'request-header',
        change: 'changed',
        name: header,
        before: old,
        after: value,
        by: headerRules,
      });
  }
  for (const [header, value] of before) {
    if (!after.has(header))
      changes.push({
        kind: 'request-header',
        change: 'removed',
        name: header,
        before: value,
        by: headerRules,
      });
  }
  if (outcome.requestBody) {
    const { value, type, ruleId } = outcome.requestBody as { value: string; type: string; ruleId: string };
    changes.push({ kind: 'request-body', body: value, code: type === 'code', by: [name(ruleId)] });
  }
  for (const change of outcome.responseHeaders) {
    changes.push({
      kind: 'response-header',
      change: change.type as 'Add' | 'Modify' | 'Remove',
      name: change.header ?? '',
      ...(change.value === undefined ? {} : { value: change.value }),
      by: change.ruleId ? [name(change.ruleId)] : [],
    });
  }
  if (outcome.response) {
    const response = outcome.response as {
      type: string;
      value: string;
      statusCode: number;
      statusText?: string;
      serveWithoutRequest: boolean;
      ruleId: string;
    };
    const code = response.type === 'code';
    changes.push({
      kind: 'response',
      status: response.statusCode,
      ...(response.statusText === undefined ? {} : { statusText: response.statusText }),
      // Served without the server, the proxy says JSON or text by the body; otherwise the server's type stays.
      contentType: code ? '' : servedContentType(response.value),
      body: response.value,
      code,
      withoutRequest: response.serveWithoutRequest,
      by: [name(response.ruleId)],
    });
  }
  for (const script of outcome.scripts as {
    type: string;
    codeType: string;
    loadTime: string;
    value: string;
    ruleId: string;
  }[]) {
    changes.push({ kind: 'script', ...script, by: [name(script.ruleId)] });
  }
  return changes;
}

/** Request headers typed one per line (`Name: value`), or the line that is not one. */
export function parseHeaderLines(text: string): { headers: HeaderValues } | { badLine: number } {
  const headers: Record<string, string[]> = {};
  const lines = text.split('\n');
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '') continue;
    const colon = line.indexOf(':');
    const header = colon > 0 ? line.slice(0, colon).trim() : '';
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(header)) return { badLine: index + 1 };
    headers[header] = [...(headers[header] ?? []), line.slice(colon + 1).trim()];
  }
  return {
    headers: Object.fromEntries(
      Object.entries(headers).map(([header, values]) => [
        header,
        values.length === 1 ? (values[0] as string) : values,
      ]),
    ),
  };
}
