// Schemas every object of the model shares: status, timestamps, and the fields a body may carry that are ignored.
import { type Static, type TObject, Type } from '@sinclair/typebox';

export const Status = Type.Union([Type.Literal('Active'), Type.Literal('Inactive')], {
  description: '`Active` or `Inactive`.',
});

/**
 * The largest integer every database keeps in an integer column (PostgreSQL's `integer`): a number in a
 * request that is compared with one (a version) is at most this, or PostgreSQL refuses the query.
 */
export const MAX_STORED_INTEGER = 2_147_483_647;

/** Names are 1 to 256 characters after trimming (MAX_NAME_LENGTH). */
export const MAX_NAME_LENGTH = 256;

/**
 * A character that `String.prototype.trim` keeps: the white space it removes, spelled out. `\S` would
 * say the same in JavaScript only: Python's `\S` (Schemathesis) takes U+FEFF, which trim removes (a
 * name of it alone is blank to the service), and refuses U+001C to U+001F, which trim keeps.
 */
export const NOT_TRIMMED =
  '[^\\t\\n\\v\\f\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]';

/**
 * A name as the document states it: not blank (a character trimming keeps) and at most 256
 * characters. For the document only: the services trim it first and count its UTF-16 units, which a
 * schema cannot say (see openapi-limits.ts), so their checks stay their own.
 */
export const DocumentedName = (description: string, examples: string[]) =>
  Type.String({ pattern: NOT_TRIMMED, maxLength: MAX_NAME_LENGTH, description, examples });

/**
 * Text the service takes in a query: no NUL and no lone UTF-16 surrogate, which no database stores
 * (`isStorableText`, http/payload.ts: 400 Invalid query). For the document: JSON Schema reads
 * a pattern in Unicode mode, where `[\ud800-\udfff]` is a surrogate alone (a pair is one character).
 */
export const STORABLE_TEXT_PATTERN = '^[^\\u0000\\ud800-\\udfff]*$';

/**
 * Begins the description of a number kept in a bigint column (an epoch-ms time), which may pass
 * 2^31 - 1 (the document's test of request bounds reads it).
 */
export const EPOCH_MS_BIGINT = 'Epoch milliseconds (kept as a 64-bit integer).';
/** The largest time a JavaScript Date holds. */
export const MAX_EPOCH_MS = 8_640_000_000_000_000;

export const Timestamp = Type.Integer({ description: 'Epoch milliseconds.', examples: [1763769600000] });

/**
 * The fields a body may carry that are ignored, whatever their value (read-only fields, so
 * that a client may send back what it read, and Requestly's own), as one named schema.
 */
export function ignoredFields(id: string, names: Iterable<string>) {
  return Type.Object(Object.fromEntries([...names].map((name) => [name, Type.Optional(Type.Unknown())])), {
    $id: id,
    description: 'Fields that are ignored when sent, whatever their value.',
  });
}

/**
 * A body for the document: its own fields, plus `ignored` (referred to, not copied), and nothing
 * else. `unevaluatedProperties` sees the fields of both, where `additionalProperties` would not.
 */
export function acceptingIgnored<T extends TObject>(body: T, ignored: TObject) {
  const { additionalProperties: _own, ...rest } = body;
  return Type.Unsafe<Static<T>>({ ...rest, allOf: [ignored], unevaluatedProperties: false });
}
