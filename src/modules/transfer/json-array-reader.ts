// Reading a large JSON array one element at a time: `rulekeeper import` of a 100,000-record file
// holds one element's text at a time, never the whole file or all of its records.
import { AppError } from '../../errors.js';
import { MAX_JSON_DEPTH } from '../../http/json-depth.js';
import { isPlainObject, MalformedBody, parseJsonBody } from '../../http/payload.js';
import { recordKind } from './import-records.js';

const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const isSpace = (byte: number) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;

function invalid(path: string, message: string): AppError {
  return new AppError('IMPORT_INVALID', [{ path, message }]);
}

/** The nesting a record may have: the file's array is one level of the depth allowed. */
const RECORD_DEPTH = MAX_JSON_DEPTH - 1;

/** One element parsed as a request body is. */
export function parseRecord(text: string): unknown {
  return parseJsonBody(text, RECORD_DEPTH);
}

/**
 * An element parsed only as far as an import's first pass needs (is it a group?), at native
 * JSON.parse speed. Groups, and anything JSON.parse refuses, get the full check; every other record
 * gets it in the second pass, which refuses the file the same way.
 */
export function skimRecord(text: string): unknown {
  try {
    const value: unknown = JSON.parse(text);
    return isPlainObject(value) && recordKind(value) === 'group' ? parseRecord(text) : value;
  } catch {
    return parseRecord(text);
  }
}

/**
 * The elements of the JSON array in `chunks` (UTF-8 bytes), each parsed as a request body is (the
 * same refusals of prototype keys and unstorable text). The scan only finds where each element ends;
 * JSON.parse judges the element itself, so what it accepts is exactly what a whole-file parse accepts.
 * A file that is not one JSON array is IMPORT_INVALID, with the pointer of the element at fault.
 */
export async function* readJsonArray(
  chunks: AsyncIterable<Uint8Array>,
  parse: (text: string) => unknown = parseRecord,
): AsyncGenerator<unknown> {
  let state = 'before' as 'before' | 'inside' | 'after';
  let depth = 0; // nesting inside the current element
  let deepest = 0; // the current element's deepest nesting so far
  let inString = false;
  let escaped = false;
  let carried: Buffer[] = []; // the current element's bytes from earlier chunks
  let index = 0;
  let first = true;
  let opening = true; // the file's first chunk

  /**
   * The element's text, ended by a comma or the closing bracket, parsed. One nested too deeply is
   * always given to the checking parser, which refuses it at its place without building it (a skim
   * with JSON.parse would build all ten million levels first).
   */
  function element(text: string, nesting: number): unknown {
    if (text === '') throw invalid(`/${index}`, `expected a record at position ${index} of the array`);
    const value = nesting > RECORD_DEPTH ? parseRecord(text) : parse(text);
    if (value instanceof MalformedBody)
      throw invalid(`/${index}${value.path}`, value.reason.replace('the body', `record ${index}`));
    index++;
    return value;
  }

  for await (const bytes of chunks) {
    const chunk = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    let i = 0;
    if (state === 'before') {
      // A UTF-8 byte order mark is allowed, as in a file saved by a Windows editor.
      if (opening && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) i = 3;
      opening = false;
      while (i < chunk.length && isSpace(chunk[i] as number)) i++;
      if (i === chunk.length) continue;
      if (chunk[i] !== OPEN_BRACKET)
        throw invalid('', 'the file must be a JSON array of rule and group records (a Requestly export)');
      state = 'inside';
      i++;
    }
    let start = i; // where the current element's bytes begin in this chunk
    for (; state === 'inside' && i < chunk.length; i++) {
      const byte = chunk[i] as number;
      if (inString) {
        if (escaped) escaped = false;
        else if (byte === BACKSLASH) escaped = true;
        else if (byte === QUOTE) inString = false;
      } else if (byte === QUOTE) inString = true;
      else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
        depth++;
        if (depth > deepest) deepest = depth;
      } else if ((byte === CLOSE_BRACE || byte === CLOSE_BRACKET) && depth > 0) depth--;
      else if (depth === 0 && (byte === COMMA || byte === CLOSE_BRACKET)) {
        const text = (
          carried.length === 0
            ? chunk.toString('utf8', start, i)
            : Buffer.concat([...carried, chunk.subarray(start, i)]).toString('utf8')
        ).trim();
        carried = [];
        start = i + 1;
        // `[]` holds no element; `[1,]` and `[,1]` hold an empty one.
        const nesting = deepest;
        deepest = 0;
        if (!(byte === CLOSE_BRACKET && first && text === '')) yield element(text, nesting);
        first = false;
        if (byte === CLOSE_BRACKET) state = 'after';
      }
    }
    // Copied: the chunk's memory may be reused by the stream once the loop moves on.
    if (state === 'inside') carried.push(Buffer.from(chunk.subarray(start)));
    for (; state === 'after' && i < chunk.length; i++) {
      if (!isSpace(chunk[i] as number))
        throw invalid('', 'the file holds more than one JSON value after the array');
    }
  }
  if (state !== 'after')
    throw invalid(state === 'before' ? '' : `/${index}`, 'the file ends before its array does');
}
