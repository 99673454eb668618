// A request mockttp's hook holds whole (head-route.ts decided it needs that: some rule reads its body,
// or the proxy answers it itself): the rules evaluated with its body, then answered here (Cancel, a
// Redirect, a Response served without the request, a failed rule's code) or sent upstream as changed.
import { STATUS_CODES } from 'node:http';
import type { CompletedRequest, requestSteps } from 'mockttp';
import type { RuleSet } from '../engine/index.js';
import { RULES_HEADER } from './answer-rewrite.js';
import { CodeError } from './code-runner.js';
import { stripObject } from './hop-by-hop.js';
import { needsUrlForUpstreamName } from './ip-tunnels.js';
import { localFile } from './local-files.js';
import type { ProxyContext } from './proxy-context.js';

type CallbackRequestResult = requestSteps.CallbackRequestResult;
type CallbackResponseResult = requestSteps.CallbackResponseResult;

/** The ids of the active rules that filter on request bodies (named when a body is too large). */
function bodyReaders(rules: RuleSet): string {
  return rules.rules
    .filter((rule) => !rule.inactive && JSON.stringify(rule.rule.pairs).includes('"requestPayload"'))
    .map((rule) => rule.rule.id)
    .join(', ');
}

export function beforeRequest(
  ctx: ProxyContext,
): (request: CompletedRequest) => Promise<CallbackRequestResult> {
  return (request) => hooked(ctx, request);
}

async function hooked(ctx: ProxyContext, request: CompletedRequest): Promise<CallbackRequestResult> {
  const { options, code } = ctx;
  const exchange = ctx.byId.get(request.id);
  const rules = options.feed.current();
  const length = Number(request.headers['content-length'] ?? 0);
  // mockttp hands an empty body to the hook when the body went past its limit (it then streams).
  const truncated =
    request.body.buffer.length === 0 &&
    (length > options.maxBodyBytes || (exchange?.request !== undefined && !exchange.request.readableEnded));
  const limit = `its body is larger than --max-body-bytes (${options.maxBodyBytes})`;
  if (truncated && rules.readsBodies)
    options.log(`rules ${bodyReaders(rules)} skipped for ${request.method} ${request.url}: ${limit}`);
  const body = !truncated && request.body.buffer.length > 0 ? await request.body.getText() : undefined;
  const upstream = needsUrlForUpstreamName(request) ? { url: request.url } : {};
  const decision = ctx.decide(rules, request.url, request.method, request.headers, body);
  if (!decision || decision.acted.length === 0) return upstream;
  options.hits?.acted(decision.acted);
  const { outcome } = decision;
  const rules_ = decision.acted.join(', ');
  try {
    if (outcome.cancelled) return { response: 'close' };
    if (outcome.delayMs > 0) await new Promise((done) => setTimeout(done, outcome.delayMs));
    if (outcome.redirected) {
      if (!outcome.url.startsWith('file:'))
        return {
          response: {
            statusCode: 307,
            headers: { location: outcome.url, [RULES_HEADER]: rules_ },
            body: '',
          },
        };
      const file = await fileAnswer(ctx, outcome.url, rules_);
      if (file) return { response: file };
    }
    const mock = outcome.response;
    if (mock?.serveWithoutRequest) {
      const value =
        mock.type === 'code'
          ? code('Response', mock.value, { method: request.method, url: request.url })
          : mock.value;
      if (value !== undefined)
        return {
          response: {
            statusCode: mock.statusCode,
            // The reason phrase of its status ("201 Created", never "201 OK"), and a content type.
            statusMessage: mock.statusText ?? STATUS_CODES[mock.statusCode] ?? '',
            headers: { 'content-type': staticContentType(value), [RULES_HEADER]: rules_ },
            body: value,
          },
        };
    }
    let newBody: string | undefined;
    const sent = outcome.requestBody;
    if (sent?.type === 'code') {
      if (truncated)
        options.log(`rules ${sent.ruleId} skipped for ${request.method} ${request.url}: ${limit}`);
      else newBody = code('Request', sent.value, { method: request.method, url: request.url, body });
    } else if (sent) newBody = sent.value;
    if (exchange) exchange.plan = { rules: rules_, method: request.method, url: request.url, outcome };
    const headers = stripObject(outcome.requestHeaders);
    if (truncated && newBody === undefined) {
      // The body streams on after what mockttp read: it cannot have a length computed from it.
      delete headers['content-length'];
      headers['transfer-encoding'] = 'chunked';
    }
    return { ...upstream, headers, ...(newBody !== undefined ? { body: newBody } : {}) };
  } catch (error) {
    if (error instanceof CodeError) return { response: textAnswer(500, error.message, rules_) };
    // Whatever failed, the client is told nothing of this machine (no paths, no stack).
    options.log(`a request to ${request.url} failed in the proxy: ${(error as Error).message}`);
    return { response: textAnswer(500, 'the proxy could not apply the rules to this request', rules_) };
  }
}

async function fileAnswer(
  ctx: ProxyContext,
  url: string,
  rules: string,
): Promise<CallbackResponseResult | undefined> {
  const { options } = ctx;
  if (!options.allowFilesDir) {
    ctx.warnOnce(
      'files',
      'a Redirect to a local file was passed through: start with --allow-files DIR to serve files',
    );
    return undefined;
  }
  const file = await localFile(options.allowFilesDir, url, options.maxBodyBytes);
  if (file.status === 200) return { statusCode: 200, headers: { [RULES_HEADER]: rules }, body: file.body };
  return textAnswer(file.status, file.message, rules);
}

/** What a body the proxy answers by itself is: JSON when it parses as JSON, else text. */
export function staticContentType(value: string): string {
  try {
    JSON.parse(value);
    return 'application/json; charset=utf-8';
  } catch {
    return 'text/plain; charset=utf-8';
  }
}

function textAnswer(statusCode: number, message: string, rules: string): CallbackResponseResult {
  return {
    statusCode,
    headers: { 'content-type': 'text/plain; charset=utf-8', [RULES_HEADER]: rules },
    body: `${message}\n`,
  };
}
