// The OpenAPI document as a contract on every response the api tests receive through app.inject:
// the status must be one the operation documents, and the body (2xx and errors alike) must match the
// schema documented for that status, so the document cannot drift from what the service answers.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type { FastifyInstance, InjectOptions } from 'fastify';

/** What the checks read of a response (app.inject's answer has it). */
export interface Answer {
  statusCode: number;
  headers: Record<string, unknown>;
  body: string;
}

export interface Operation {
  responses: Record<string, { content?: Record<string, unknown>; headers?: Record<string, Header> }>;
}
interface Header {
  required?: boolean;
  schema?: Record<string, unknown>;
  $ref?: string;
}
export interface Document {
  paths: Record<string, Record<string, Operation>>;
  components?: { headers?: Record<string, Header> };
}

interface Route {
  template: string;
  pattern: RegExp;
  /** Literal segments first: `/v1/changes/stream` wins over a `{param}` in the same place. */
  params: number;
}

/** One document's checks, with each validator compiled on first use and kept. */
export class Contract {
  private readonly ajv: Ajv2020;
  private readonly routes: Route[];
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(readonly document: Document) {
    // The document is a schema resource; each response schema is reached by a pointer into it, so
    // its `#/components/schemas/...` references resolve as they do for any reader of the document.
    // Strict, so that a misspelt keyword in the document is an error, not a check silently skipped;
    // OpenAPI's own keywords beside JSON Schema's are known as annotations.
    this.ajv = new Ajv2020({ strict: true, allErrors: true });
    // The document's own fields at its root (the resource the pointers go into) are no keywords either.
    for (const keyword of ['discriminator', 'example', ...Object.keys(document)])
      this.ajv.addKeyword(keyword);
    this.ajv.addSchema({ ...document, $id: 'openapi' });
    this.routes = Object.keys(document.paths)
      .map((template) => ({
        template,
        pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
        params: (template.match(/\{/g) ?? []).length,
      }))
      .sort((a, b) => a.params - b.params);
  }

  check(method: string, url: string, response: Answer): void {
    // The path as the server sees it: parsed as light-my-request parses it (a backslash becomes a
    // slash), and one trailing slash ignored, as the router does.
    const path = new URL(url, 'http://localhost').pathname.replace(/(.)\/$/, '$1');
    const route = this.routes.find((r) => r.pattern.test(path));
    const verb = method.toLowerCase() === 'head' ? 'get' : method.toLowerCase();
    const operation = route && this.document.paths[route.template]?.[verb];
    const where = `${method.toUpperCase()} ${url} answered ${response.statusCode}`;
    if (!route || !operation) {
      // Not an operation of the document (/healthz, an unknown route, another method): errors are
      // still the documented error body.
      if (response.statusCode >= 400 && path.startsWith('/v1/')) {
        this.validate('openapi#/components/schemas/ErrorBody', response, where);
      }
      return;
    }
    const status = String(response.statusCode);
    const documented = operation.responses[status];
    if (!documented) {
      const listed = Object.keys(operation.responses).join(', ');
      throw new Error(`${where}, a status the document does not list for it (it lists ${listed})`);
    }
    this.checkHeaders(documented.headers ?? {}, response, where);
    if (!documented.content) {
      if (response.body !== '') throw new Error(`${where} with a body, where the document says none`);
      return;
    }
    if (!documented.content['application/json']) return; // the event stream
    if (!String(response.headers['content-type']).startsWith('application/json')) {
      throw new Error(`${where} as ${String(response.headers['content-type'])}, not the documented JSON`);
    }
    if (method.toLowerCase() === 'head') return;
    const pointer = [
      'paths',
      route.template,
      verb,
      'responses',
      status,
      'content',
      'application/json',
      'schema',
    ]
      .map((token) => encodeURIComponent(token.replace(/~/g, '~0').replace(/\//g, '~1')))
      .join('/');
    this.validate(`openapi#/${pointer}`, response, where);
  }

  private checkHeaders(headers: Record<string, Header>, response: Answer, where: string) {
    for (const [name, declared] of Object.entries(headers)) {
      const shared = declared.$ref?.replace('#/components/headers/', '');
      const header = (shared && this.document.components?.headers?.[shared]) || declared;
      const value = response.headers[name.toLowerCase()];
      if (value === undefined) {
        if (header.required) throw new Error(`${where} without the documented header ${name}`);
        continue;
      }
      const pattern = header.schema?.pattern;
      if (typeof pattern === 'string' && !new RegExp(pattern, 'u').test(String(value))) {
        throw new Error(
          `${where} with header ${name}: ${String(value)}, not of the documented form ${pattern}`,
        );
      }
    }
  }

  private validate(ref: string, response: Answer, where: string): void {
    let validate = this.validators.get(ref);
    if (!validate) {
      validate = this.ajv.compile({ $ref: ref });
      this.validators.set(ref, validate);
    }
    let body: unknown;
    try {
      body = JSON.parse(response.body);
    } catch {
      throw new Error(`${where} with a body that is not JSON: ${response.body.slice(0, 200)}`);
    }
    if (!validate(body)) {
      const problems = this.ajv.errorsText(validate.errors, { separator: '\n  ', dataVar: 'body' });
      throw new Error(
        `${where} with a body the document does not allow:\n  ${problems}\n${response.body.slice(0, 2000)}`,
      );
    }
  }
}

// Every app of a run serves the same document (it depends on no configuration): built once per text.
const contracts = new Map<string, Contract>();

/** The contract of the document `app` serves. */
export function contractOf(app: FastifyInstance): Promise<Contract> {
  return contractFrom(app.inject.bind(app));
}

async function contractFrom(inject: FastifyInstance['inject']): Promise<Contract> {
  const text = (await inject({ method: 'GET', url: '/v1/openapi.json' })).body;
  let contract = contracts.get(text);
  if (!contract) {
    contract = new Contract(JSON.parse(text) as Document);
    contracts.set(text, contract);
  }
  return contract;
}

/**
 * Makes `app.inject({...})` check every response against the app's OpenAPI document (a mismatch
 * throws, failing the test); the chained and callback forms of inject are left as they are.
 */
export async function checkResponses(app: FastifyInstance): Promise<FastifyInstance> {
  const inject = app.inject.bind(app);
  const contract = await contractFrom(inject);
  app.inject = ((options?: InjectOptions | string, callback?: unknown) => {
    if (options === undefined || callback !== undefined) {
      return (inject as (...args: unknown[]) => unknown)(options, callback);
    }
    const request = typeof options === 'string' ? { url: options } : options;
    return inject(request).then((response) => {
      const url = typeof request.url === 'string' ? request.url : String(request.path ?? '');
      contract.check(request.method ?? 'GET', url, response);
      return response;
    });
  }) as FastifyInstance['inject'];
  return app;
}
