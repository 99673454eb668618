// The extension's calls to the Rulekeeper server, with the key the person signed in with. Refusals
// come back as the server's own words (`Invalid API key: this key expired at …`), never with the key.
import { createClient } from '../../src/client/index.js';
import type { Identity, Settings } from './settings.js';

/** A chrome.declarativeNetRequest rule as GET /v1/browser-rules answers it. */
export type DnrRule = chrome.declarativeNetRequest.Rule;

export interface CompileReport {
  ruleId: string;
  status: 'compiled' | 'partial' | 'not_compiled';
  /** Per pair: the ids of the browser rules written for it. */
  pairs?: { index: number; browserRuleIds?: number[] }[];
  reasons: string[];
}

export interface BrowserRules {
  rules: DnrRule[];
  report: CompileReport[];
}

/** A failure the person must act on (their key refused) or that will pass (the server away). */
export class ServerError extends Error {
  constructor(
    message: string,
    readonly refused: boolean,
  ) {
    super(message);
  }
}

interface ErrorBody {
  message?: string;
  details?: { message?: string }[];
}

/** The error body's message and the details that say why, as one sentence (the status when there is none). */
function refusalOf(status: number, body: ErrorBody | undefined): ServerError {
  const details = (body?.details ?? []).map((detail) => detail.message).filter(Boolean);
  const text = body?.message
    ? details.length > 0
      ? `${body.message}: ${details.join('; ')}`
      : body.message
    : `the server answered ${status}`;
  return new ServerError(text, status === 401 || status === 403);
}

async function refusal(response: Response): Promise<ServerError> {
  // Not JSON (a proxy's page): the status says enough.
  const body = (await response.json().catch(() => undefined)) as ErrorBody | undefined;
  return refusalOf(response.status, body);
}

const unreachable = (settings: Settings, error: unknown) =>
  new ServerError(`cannot reach ${settings.serverUrl} (${(error as Error).message})`, false);

/** Who the key is: its workspace, user and scope. Throws a ServerError when refused or away. */
export async function whoami(settings: Settings): Promise<Identity> {
  const client = createClient({ baseUrl: settings.serverUrl, key: settings.key });
  const answer = await client.GET('/v1/whoami').catch((error: unknown) => {
    throw unreachable(settings, error);
  });
  // openapi-fetch has read the error body already.
  if (!answer.data) throw refusalOf(answer.response.status, answer.error as ErrorBody | undefined);
  const { key, user, workspace } = answer.data.data;
  // Asked with a key, whoami always describes it (null is a person's session's answer).
  if (!key) throw refusalOf(401, undefined);
  // A server older than environments names none.
  const bound = (key as { environment?: string | null }).environment;
  return {
    workspace: workspace.name,
    user: user.name,
    scope: key.scope,
    keyName: key.name ?? undefined,
    expiresAt: key.expiresAt ?? null,
    ...(bound === undefined ? {} : { environment: bound }),
  };
}

/** The workspace's environments' names (none from a server without environments). */
export async function environments(settings: Settings): Promise<string[]> {
  let response: Response;
  try {
    response = await fetch(`${settings.serverUrl}/v1/environments`, {
      headers: { 'x-api-key': settings.key },
      cache: 'no-store',
    });
  } catch (error) {
    throw unreachable(settings, error);
  }
  if (response.status === 404) return [];
  if (!response.ok) throw await refusal(response);
  const body = (await response.json()) as { data: { name: string }[] };
  return body.data.map((environment) => environment.name);
}

/** `?environment=` when the person chose one; else the server uses the key's own. */
const inEnvironment = (settings: Settings) =>
  settings.environment ? `?environment=${encodeURIComponent(settings.environment)}` : '';

/**
 * The workspace's rules compiled for Chrome, or `'unchanged'` when `etag` still holds (304): the ETag
 * follows the workspace's revision, so asking after every change costs one revision read when nothing
 * a browser sees changed.
 */
export async function browserRules(
  settings: Settings,
  etag: string | undefined,
): Promise<{ rules: BrowserRules; etag: string | undefined } | 'unchanged'> {
  let response: Response;
  try {
    response = await fetch(`${settings.serverUrl}/v1/browser-rules${inEnvironment(settings)}`, {
      headers: { 'x-api-key': settings.key, ...(etag ? { 'if-none-match': etag } : {}) },
      cache: 'no-store',
    });
  } catch (error) {
    throw unreachable(settings, error);
  }
  if (response.status === 304) return 'unchanged';
  if (!response.ok) throw await refusal(response);
  const body = (await response.json()) as { data: BrowserRules };
  return { rules: body.data, etag: response.headers.get('etag') ?? undefined };
}

export interface TraceRequest {
  url: string;
  method?: string;
  resourceType?: string;
  pageUrl?: string;
}

/** One rule's verdict on a request, as POST /v1/trace explains it. */
export interface RuleExplanation {
  ruleId: string;
  name: string;
  acted: boolean;
  reason: string;
  pairs: { index: number; matched: boolean; checks: { check: string; passed: boolean; detail: string }[] }[];
}

export async function explain(settings: Settings, request: TraceRequest, ruleId: string) {
  let response: Response;
  try {
    response = await fetch(`${settings.serverUrl}/v1/trace`, {
      method: 'POST',
      headers: { 'x-api-key': settings.key, 'content-type': 'application/json' },
      body: JSON.stringify({
        request,
        ruleIds: [ruleId],
        ...(settings.environment ? { environment: settings.environment } : {}),
      }),
    });
  } catch (error) {
    throw unreachable(settings, error);
  }
  if (!response.ok) throw await refusal(response);
  const body = (await response.json()) as { data: { rules: RuleExplanation[] } };
  return body.data.rules.find((rule) => rule.ruleId === ruleId);
}
