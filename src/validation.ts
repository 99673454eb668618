// Turns TypeBox schema errors into the `details` callers read: one clear message per JSON Pointer.
import type { TSchema } from '@sinclair/typebox';
import { type TypeCheck, TypeCompiler } from '@sinclair/typebox/compiler';
import { type ValueError, ValueErrorType } from '@sinclair/typebox/errors';
import type { ErrorDetail } from './errors.js';

export function compile<T extends TSchema>(schema: T): TypeCheck<T> {
  return TypeCompiler.Compile(schema);
}

function literals(schema: TSchema): string[] | undefined {
  const options = (schema.anyOf ?? schema.oneOf) as TSchema[] | undefined;
  if (!options?.every((option) => 'const' in option)) return undefined;
  return options.map((option) => String(option.const));
}

function describe(error: ValueError): string {
  const s = error.schema;
  switch (error.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return 'required field missing';
    case ValueErrorType.ObjectAdditionalProperties:
      return `unknown field "${error.path.split('/').pop()?.replace(/~1/g, '/').replace(/~0/g, '~')}"`;
    case ValueErrorType.Union: {
      const allowed = literals(s);
      return allowed ? `must be one of ${allowed.join(', ')}` : 'does not match any allowed shape';
    }
    case ValueErrorType.Literal:
      return `must be ${JSON.stringify(s.const)}`;
    case ValueErrorType.String:
      return 'must be a string';
    case ValueErrorType.StringMinLength:
      return s.minLength === 1 ? 'must not be empty' : `must be at least ${s.minLength} characters`;
    case ValueErrorType.StringMaxLength:
      return `must be at most ${s.maxLength} characters`;
    case ValueErrorType.StringPattern:
      return s.description ? `must be ${s.description}` : `must match ${s.pattern}`;
    case ValueErrorType.Boolean:
      return 'must be true or false';
    case ValueErrorType.Number:
      return 'must be a number';
    case ValueErrorType.Integer:
      return 'must be an integer';
    case ValueErrorType.NumberMinimum:
      return `must be at least ${s.minimum}`;
    case ValueErrorType.NumberMaximum:
      return `must be at most ${s.maximum}`;
    case ValueErrorType.Array:
      return 'must be an array';
    case ValueErrorType.ArrayMinItems:
      return `must have at least ${s.minItems} item${s.minItems === 1 ? '' : 's'}`;
    case ValueErrorType.ArrayMaxItems:
      return `must have at most ${s.maxItems} items`;
    case ValueErrorType.Object:
      return 'must be an object';
    case ValueErrorType.ObjectMinProperties:
      return 'must not be empty';
    default:
      return error.message;
  }
}

/**
 * Every schema error of `value`, at most one per location (the first is the most telling: a wrong
 * type is reported, not also the constraints that follow from it). `prefix` is the pointer of `value`.
 */
export function schemaErrors(check: TypeCheck<TSchema>, value: unknown, prefix = ''): ErrorDetail[] {
  if (check.Check(value)) return [];
  const seen = new Set<string>();
  const details: ErrorDetail[] = [];
  for (const error of check.Errors(value)) {
    const path = prefix + error.path;
    if (seen.has(path)) continue;
    seen.add(path);
    details.push({ path, message: describe(error) });
  }
  return details;
}
