// Paging of list endpoints: the query's offset and pageSize, and the page envelope.
import type { Static, TSchema } from '@sinclair/typebox';
import type { TypeCheck } from '@sinclair/typebox/compiler';
import { AppError, pointerToken } from '../../errors.js';
import { schemaErrors } from '../../validation.js';
import { isStorableText } from './payload.js';
import { MAX_PAGE_SIZE } from './schemas.js';

export interface Paged<T> {
  success: true;
  data: T[];
  total: number;
  nextOffset: number | null;
}

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

function nextOffset(count: number, total: number, offset: number): number | null {
  return count > 0 && offset + count < total ? offset + count : null;
}

export function pageOf<T>(data: T[], total: number, offset: number): Paged<T> {
  return { success: true, data, total, nextOffset: nextOffset(data.length, total, offset) };
}

/** The same page as JSON text, from items that are already JSON text. */
export function serializedPageOf(items: string[], total: number, offset: number): string {
  const next = nextOffset(items.length, total, offset);
  return `{"success":true,"data":[${items.join(',')}],"total":${total},"nextOffset":${next}}`;
}
