// Reading a JSON request body into a checked payload, with every problem named by JSON Pointer.
import type { Static, TSchema } from '@sinclair/typebox';
import type { TypeCheck } from '@sinclair/typebox/compiler';
import secureJson from 'secure-json-parse';
import { AppError, type ErrorCode, type ErrorDetail, pointerToken } from '../errors.js';
import { schemaErrors } from '../validation.js';
import { MAX_JSON_DEPTH, tooDeepAt, tooDeepMessage } from './json-depth.js';

/**
 * A body that is not JSON. The parser hands it on instead of failing, so that the service reports it
 * in the documented order (a bad body on someone else's rule is 403, not 400).
 */
export class MalformedBody {
  constructor(
    readonly reason: string,
    readonly path = '',
  ) {}
}

/** The body parsed, or why it cannot be used; `maxDepth` is less for a piece of a larger body. */
export function parseJsonBody(text: string, maxDepth = MAX_JSON_DEPTH): unknown {
  if (text.trim() === '') return new MalformedBody('the body is empty');
  // Before parsing: what comes after (checks, hashing, storing) may recurse once per level.
  const deep = tooDeepAt(text, maxDepth);
  if (deep !== undefined) return new MalformedBody(`the value at "${deep}" ${tooDeepMessage()}`, deep);
  let body: unknown;
  try {
    // Keys that could reach an object's prototype are refused outright, whatever happens to them later.
    body = secureJson.parse(text, undefined, { protoAction: 'error', constructorAction: 'error' });
  } catch (error) {
    return new MalformedBody(`the body is not valid JSON: ${(error as Error).message}`);
  }
  const bad = findUnstorableText(body);
  return bad === undefined ? body : new MalformedBody(`text at "${bad}" ${UNSTORABLE}`, bad);
}

const UNSTORABLE = 'holds a NUL character or a lone UTF-16 surrogate, which cannot be stored as text';

/**
 * Text that no database keeps as sent (NUL; a lone surrogate, which UTF-8 cannot encode) would be
 * stored altered or refused by the driver, so it is refused at the door.
 */
export function isStorableText(text: string): boolean {
  return text.isWellFormed() && !text.includes('\0');
}

/** The JSON Pointer of the first key or string in `value` that cannot be stored as text. */
function findUnstorableText(value: unknown): string | undefined {
  // Each place knows its parent and key; its pointer is written only for the place at fault.
  interface Place {
    item: unknown;
    parent?: Place;
    key?: string;
  }
  // Iterative, as is the walk: bodies may nest deeper than the call stack.
  const pointer = (place: Place): string => {
    const tokens: string[] = [];
    for (let at: Place | undefined = place; at?.parent; at = at.parent)
      tokens.push(pointerToken(at.key as string));
    return tokens
      .reverse()
      .map((token) => `/${token}`)
      .join('');
  };
  const pending: Place[] = [{ item: value }];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const { item } = next;
    if (typeof item === 'string') {
      if (!isStorableText(item)) return pointer(next);
    } else if (typeof item === 'object' && item !== null) {
      for (const [key, child] of Object.entries(item)) {
        const place = { item: child, parent: next, key };
        if (!isStorableText(key)) return pointer(place);
        pending.push(place);
      }
    }
  }
  return undefined;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return (
    typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof MalformedBody)
  );
}

/** Problems with the body as a whole, before its fields are looked at. */
export function bodyShapeError(body: unknown): ErrorDetail | undefined {
  if (body instanceof MalformedBody) return { path: body.path, message: body.reason };
  if (!isPlainObject(body)) return { path: '', message: 'the body must be a JSON object' };
  return undefined;
}

/**
 * The body's fields, with the `ignored` ones (read-only fields a client may send back) left out, and
 * every problem `check` finds in them; for a body that is not an object, that one problem.
 */
export function payloadProblems<T extends TSchema>(
  body: unknown,
  check: TypeCheck<T>,
  ignored: ReadonlySet<string>,
): { payload: Static<T>; details: ErrorDetail[] } {
  const shape = bodyShapeError(body);
  if (shape) return { payload: {} as Static<T>, details: [shape] };
  const payload: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
    if (!ignored.has(key)) payload[key] = value;
  }
  return { payload: payload as Static<T>, details: schemaErrors(check, payload) };
}

/** The body checked against `check` (see payloadProblems); throws `code` with every problem found. */
export function readPayload<T extends TSchema>(
  body: unknown,
  check: TypeCheck<T>,
  code: ErrorCode,
  ignored: ReadonlySet<string>,
): Static<T> {
  const { payload, details } = payloadProblems(body, check, ignored);
  if (details.length > 0) throw new AppError(code, details);
  return payload;
}
