// The API's `details` point at the field at fault with a JSON Pointer (`/pairs/0/source/operator`);
// the form is drawn with the same pointers, so each message lands next to its field.
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { ErrorDetail } from '../api.js';

export type FieldErrors = ReadonlyMap<string, string[]>;

export function errorsByPointer(details: readonly ErrorDetail[]): FieldErrors {
  const map = new Map<string, string[]>();
  for (const detail of details) map.set(detail.path, [...(map.get(detail.path) ?? []), detail.message]);
  return map;
}

export const FieldErrorsContext = createContext<FieldErrors>(new Map());

export function useFieldErrors(pointer: string): string[] {
  return useContext(FieldErrorsContext).get(pointer) ?? [];
}

/** An element id for the field at a pointer: unique in the form, and valid in a CSS selector. */
export function fieldId(pointer: string): string {
  return `field${pointer.replace(/[^A-Za-z0-9]/g, (c) => `-${c.charCodeAt(0).toString(16)}-`)}`;
}
