// A variable's row on the Environments page, on its own: what its boxes show, what a save sends (never
// a secret read back, a secret made plain never keeping hidden values) and where a refusal is said.
import { describe, expect, it } from 'vitest';
import {
  bodyOf,
  cellOf,
  draftOf,
  dropsSecretValues,
  messagesAt,
} from '../../console/src/environments/variable-draft.js';

describe('a variable row saved', () => {
  const plain = {
    name: 'API',
    description: 'Where the API is',
    secret: false,
    values: { dev: 'http://localhost:3000', staging: 'https://staging.example.com' },
    version: 1,
    creationDate: 1,
    modificationDate: 1,
  };
  const secret = { ...plain, name: 'TOKEN', secret: true, values: { dev: null, staging: null } };

  it("shows a plain variable's values in its boxes, and never a secret's", () => {
    expect(draftOf(plain as never).values).toEqual(plain.values);
    expect(draftOf(secret as never).values).toEqual({});
    expect(draftOf(null)).toEqual({ name: '', description: '', secret: false, values: {} });
  });

  it("sends a plain variable's values whole, an emptied box being no value there", () => {
    const draft = { ...draftOf(plain as never), values: { dev: 'http://localhost:4000', staging: '' } };
    expect(bodyOf(draft, plain as never)).toEqual({
      description: 'Where the API is',
      secret: false,
      values: { dev: 'http://localhost:4000' },
    });
  });

  it("keeps a secret's values where no box was typed in, and never keeps them once it is plain", () => {
    const untouched = draftOf(secret as never);
    expect(bodyOf(untouched, secret as never)).toEqual({ description: 'Where the API is', secret: true });
    // null: the API keeps the value set there (it cannot be sent back, never having been read).
    const typed = { ...untouched, values: { staging: 's3cr3t' } };
    expect(bodyOf(typed, secret as never)).toEqual({
      description: 'Where the API is',
      secret: true,
      values: { dev: null, staging: 's3cr3t' },
    });
    expect(dropsSecretValues(typed, secret as never)).toBe(false);
    // Made plain, a secret's hidden values are never kept (they would be shown): only what was typed.
    const plainNow = { ...untouched, secret: false, values: { dev: 'shown now' } };
    expect(bodyOf(plainNow, secret as never)).toEqual({
      description: 'Where the API is',
      secret: false,
      values: { dev: 'shown now' },
    });
    expect(dropsSecretValues(plainNow, secret as never)).toBe(true);
  });

  it('puts each refusal at the cell its pointer names', () => {
    expect(cellOf({ path: '/values/staging', message: 'm' })).toEqual({ environment: 'staging' });
    expect(cellOf({ path: '/name', message: 'm' })).toBe('name');
    expect(cellOf({ path: '', message: 'm' })).toBe('row');
    const details = [
      { path: '/values/dev', message: 'must not hold a line break' },
      { path: '/values/staging', message: 'too long' },
    ];
    expect(messagesAt(details, { environment: 'dev' })).toEqual(['must not hold a line break']);
    expect(messagesAt(details, 'row')).toEqual([]);
  });
});
