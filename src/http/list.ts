// Paging of list endpoints: the query's offset and pageSize (replies.ts builds the page envelope).
import type { Static, TSchema } from '@sinclair/typebox';
import type { TypeCheck } from '@sinclair/typebox/compiler';
import { AppError, pointerToken } from '../errors.js';
import { schemaErrors } from '../validation.js';
import { isStorableText } from './payload.js';
import { MAX_PAGE_SIZE } from './schemas.js';

/**
 * The query checked against `check` (every parameter a single string of the right form; unknown or
 * repeated ones rejected), with offset and pageSize as numbers.
 */
export function readListQuery<T extends TSchema>(
  query: unknown,
  check: TypeCheck<T>,
): Static<T> & { offset: number; pageSize: number } {
  const raw: Record<string, unknown> = { ...(query as Record<string, unknown>) };
  const details = schemaErrors(check, raw);
  for (const [name, value] of Object.entries(raw)) {
    if (typeof value === 'string' && !isStorableText(value)) {
      details.push({
        path: `/${pointerToken(name)}`,
        message: 'holds a NUL character or a lone UTF-16 surrogate',
      });
    }
  }
  const pageSize = raw.pageSize === undefined ? MAX_PAGE_SIZE : Number(raw.pageSize);
  if (details.length === 0 && (pageSize < 1 || pageSize > MAX_PAGE_SIZE)) {
    details.push({ path: '/pageSize', message: `must be from 1 to ${MAX_PAGE_SIZE}` });
  }
  if (details.length > 0) throw new AppError('INVALID_QUERY', details);
  return { ...raw, offset: Number(raw.offset ?? 0), pageSize } as Static<T> & {
    offset: number;
    pageSize: number;
  };
}
