// Turns TypeBox schema errors into the `details` callers read: one clear message per JSON Pointer.
import type { TSchema } from '@sinclair/typebox';
import { type TypeCheck, TypeCompiler } from '@sinclair/typebox/compiler';
import { type ValueError, ValueErrorType } from '@sinclair/typebox/errors';
import type { ErrorDetail } from './errors.js';

/**
 * What each `pattern` of our schemas means, in words: a raw regular expression is no help to a human.
 * Kept beside the schemas rather than in them, so that the OpenAPI document holds only JSON Schema.
 */
const patternMessages = new Map<string, string>();

export function describePattern(pattern: string, message: string): void {
  patternMessages.set(pattern, message);
}

export function compile<T extends TSchema>(schema: T): TypeCheck<T> {
  return TypeCompiler.Compile(schema);
}

/**
 * Every schema error of `value`, at most one per location: TypeBox reports a missing field both as
 * missing and as of the wrong type, and a caller needs to hear it once. `prefix` is the pointer of
 * `value` in the request (e.g. `/pairs/3`).
 */
export function schemaErrors(check: TypeCheck<TSchema>, value: unknown, prefix = ''): ErrorDetail[] {
  return check.Check(value) ? [] : describeErrors(check.Errors(value), prefix);
}

/** More problems than this in one body are not worth computing or reading; the first ones are shown. */
export const MAX_DETAILS = 100;

export function describeErrors(errors: Iterable<ValueError>, prefix = ''): ErrorDetail[] {
  const seen = new Set<string>();
  const details: ErrorDetail[] = [];
  for (const error of errors) {
    if (details.length >= MAX_DETAILS) break;
    if (seen.has(error.path)) continue;
    seen.add(error.path);
    details.push({ path: prefix + error.path, message: messageFor(error) });
  }
  return details;
}

function messageFor({ type, schema, path, message }: ValueError): string {
  switch (type) {
    case ValueErrorType.ObjectRequiredProperty:
      return 'required field missing';
    case ValueErrorType.ObjectAdditionalProperties:
      return `unknown field ${quote(lastToken(path))}`;
    case ValueErrorType.ObjectMinProperties:
      return 'must have at least one field';
    case ValueErrorType.Union:
      return unionMessage(schema);
    case ValueErrorType.Literal:
      return `must be ${quote(String(schema.const))}`;
    case ValueErrorType.String:
      return 'must be a string';
    case ValueErrorType.StringMinLength:
      return schema.minLength === 1
        ? 'must not be empty'
        : `must be at least ${schema.minLength} characters long`;
    case ValueErrorType.StringMaxLength:
      return `must be at most ${schema.maxLength} characters long`;
    case ValueErrorType.StringPattern:
      // A raw regular expression is no help to a human: schemas with a pattern say what it means.
      return patternMessages.get(schema.pattern) ?? `must match the pattern ${schema.pattern}`;
    case ValueErrorType.Integer:
      return 'must be an integer';
    case ValueErrorType.Number:
      return 'must be a number';
    case ValueErrorType.IntegerMinimum:
    case ValueErrorType.NumberMinimum:
      return `must be at least ${schema.minimum}`;
    case ValueErrorType.IntegerMaximum:
    case ValueErrorType.NumberMaximum:
      return `must be at most ${schema.maximum}`;
    case ValueErrorType.Boolean:
      return 'must be true or false';
    case ValueErrorType.Object:
      return 'must be an object';
    case ValueErrorType.Array:
      return 'must be an array';
    case ValueErrorType.ArrayMinItems:
      return `must have at least ${schema.minItems} ${schema.minItems === 1 ? 'item' : 'items'}`;
    case ValueErrorType.ArrayMaxItems:
      return `must have at most ${schema.maxItems} items`;
    default:
      return message; // not reachable with our schemas as they are; TypeBox's own words then
  }
}

/** Our schemas use unions only for string enums, so the message can list the allowed values. */
function unionMessage(schema: TSchema): string {
  const variants: TSchema[] = Array.isArray(schema.anyOf) ? schema.anyOf : [];
  const values = variants.map((variant) => variant.const);
  return values.every((value) => typeof value === 'string')
    ? `must be one of ${values.join(', ')}`
    : 'does not match any allowed form';
}

function lastToken(path: string): string {
  const token = path.slice(path.lastIndexOf('/') + 1);
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** Field names come from the caller and may be huge: quote a bounded part of them. */
function quote(text: string): string {
  return JSON.stringify(text.length > 64 ? `${text.slice(0, 64)}…` : text);
}
