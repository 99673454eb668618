// The request side of the OpenAPI document: whether a request is valid by the document (its body,
// path, query and header parameters), as a client generated from the document would judge it. The
// contract tests and the document fuzzer hold the service to it: valid requests taken, others refused.
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import type { FastifyInstance } from 'fastify';
import { contractOf } from './contract.js';

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema: Record<string, unknown>;
}

export interface RequestOperation {
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: { 'application/json': { schema: Record<string, unknown> } } };
  responses: Record<string, unknown>;
}

export interface RequestParts {
  path?: Record<string, string>;
  query?: Record<string, string>;
  header?: Record<string, string>;
}

export class RequestContract {
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();

  constructor(readonly document: { paths: Record<string, Record<string, RequestOperation>> }) {
    // As in contract.ts: the document is one schema resource, OpenAPI's keywords are annotations.
    this.ajv = new Ajv2020({ strict: true, allErrors: true });
    for (const keyword of ['discriminator', 'example', ...Object.keys(document)])
      this.ajv.addKeyword(keyword);
    this.ajv.addSchema({ ...document, $id: 'openapi-requests' });
  }

  operation(method: string, template: string): RequestOperation {
    const operation = this.document.paths[template]?.[method.toLowerCase()];
    if (!operation) throw new Error(`the document has no ${method} ${template}`);
    return operation;
  }

  /** What is wrong with `body` by the document (none: valid). */
  bodyProblems(method: string, template: string, body: unknown): string[] {
    const index = 'requestBody/content/application~1json/schema';
    return this.problems(`${pointer(template, method)}/${index}`, body);
  }

  /** What is wrong with the parameters by the document: missing required ones and invalid values. */
  parameterProblems(method: string, template: string, parts: RequestParts): string[] {
    const operation = this.operation(method, template);
    const problems: string[] = [];
    (operation.parameters ?? []).forEach((parameter, index) => {
      const values = parts[parameter.in] ?? {};
      const key = Object.keys(values).find((name) =>
        parameter.in === 'header'
          ? name.toLowerCase() === parameter.name.toLowerCase()
          : name === parameter.name,
      );
      if (key === undefined) {
        if (parameter.required) problems.push(`${parameter.in} ${parameter.name}: required`);
        return;
      }
      const found = this.problems(`${pointer(template, method)}/parameters/${index}/schema`, values[key]);
      problems.push(...found.map((problem) => `${parameter.in} ${parameter.name}: ${problem}`));
    });
    return problems;
  }

  /** The schema at a pointer into the document (for generators). */
  schemaAt(path: string): unknown {
    return path
      .split('/')
      .slice(1)
      .map((token) => decodeURIComponent(token).replace(/~1/g, '/').replace(/~0/g, '~'))
      .reduce<unknown>((node, token) => (node as Record<string, unknown>)?.[token], this.document);
  }

  /** What is wrong with `value` by the schema at `path` (a JSON Pointer into the document). */
  problems(path: string, value: unknown): string[] {
    let validate = this.validators.get(path);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `openapi-requests#${path}` });
      this.validators.set(path, validate);
    }
    if (validate(value)) return [];
    return (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? ''}`.trim());
  }
}

/** The JSON Pointer of an operation in the document. */
export function pointer(template: string, method: string): string {
  const token = (text: string) => encodeURIComponent(text.replace(/~/g, '~0').replace(/\//g, '~1'));
  return `/paths/${token(template)}/${method.toLowerCase()}`;
}

const contracts = new WeakMap<object, RequestContract>();

/** The request contract of the document `app` serves. */
export async function requestContractOf(app: FastifyInstance): Promise<RequestContract> {
  const { document } = await contractOf(app);
  let contract = contracts.get(document);
  if (!contract) {
    contract = new RequestContract(document as unknown as RequestContract['document']);
    contracts.set(document, contract);
  }
  return contract;
}
