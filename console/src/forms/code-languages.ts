// The languages a rule's code and bodies are coloured in. JSON has CodeMirror's own parser (a
// dependency already); JavaScript, CSS and HTML have small tokenisers here (a stream language each),
// enough to colour keywords, strings, comments, numbers, tags and attributes: the console has no
// other CodeMirror language package, and colouring is all it asks of them.
import { json } from '@codemirror/lang-json';
import { StreamLanguage, type StreamParser, type StringStream } from '@codemirror/language';
import type { Extension } from '@codemirror/state';
import type { CodeKind } from './body-kind.js';

const JS_KEYWORDS = new Set(
  (
    'async await break case catch class const continue debugger default delete do else export extends ' +
    'finally for function if import in instanceof let new of return static super switch this throw try ' +
    'typeof var void while with yield'
  ).split(' '),
);
const JS_ATOMS = new Set(['true', 'false', 'null', 'undefined', 'NaN', 'Infinity']);

interface InComment {
  comment: boolean;
}

/** Reads a quoted string to its closing quote (or the line's end). */
function quoted(stream: StringStream, quote: string): void {
  let escaped = false;
  for (let next = stream.next(); next !== undefined; next = stream.next()) {
    if (next === quote && !escaped) return;
    escaped = !escaped && next === '\\';
  }
}

function blockComment(stream: StringStream, state: InComment): string {
  state.comment = !stream.match(/^.*?\*\//) && (stream.skipToEnd(), true);
  return 'comment';
}

const javascriptParser: StreamParser<InComment> = {
  name: 'javascript',
  startState: () => ({ comment: false }),
  token(stream, state) {
    if (state.comment) return blockComment(stream, state);
    if (stream.eatSpace()) return null;
    if (stream.match('//')) {
      stream.skipToEnd();
      return 'comment';
    }
    if (stream.match('/*')) return blockComment(stream, state);
    const char = stream.peek() ?? '';
    if (char === '"' || char === "'" || char === '`') {
      stream.next();
      quoted(stream, char);
      return 'string';
    }
    if (stream.match(/^(0x[\da-f]+|\d[\d_]*(\.\d+)?(e[+-]?\d+)?)/i)) return 'number';
    const word = stream.match(/^[A-Za-z_$][\w$]*/) as RegExpMatchArray | null;
    if (word) {
      if (JS_KEYWORDS.has(word[0])) return 'keyword';
      if (JS_ATOMS.has(word[0])) return 'atom';
      return 'variableName';
    }
    stream.next();
    return /[{}()[\]]/.test(char) ? 'bracket' : /[;,.]/.test(char) ? 'punctuation' : 'operator';
  },
};

const cssParser: StreamParser<InComment> = {
  name: 'css',
  startState: () => ({ comment: false }),
  token(stream, state) {
    if (state.comment) return blockComment(stream, state);
    if (stream.eatSpace()) return null;
    if (stream.match('/*')) return blockComment(stream, state);
    const char = stream.peek() ?? '';
    if (char === '"' || char === "'") {
      stream.next();
      quoted(stream, char);
      return 'string';
    }
    if (stream.match(/^-?\d[\d.]*(%|[a-z]+)?/i)) return 'number';
    if (stream.match(/^#[\da-f]{3,8}\b/i)) return 'atom';
    if (stream.match(/^[\w-]+(?=\s*:)/)) return 'propertyName';
    if (stream.match(/^@[\w-]+/)) return 'keyword';
    if (stream.match(/^[.#]?[\w-]+/)) return 'tagName';
    stream.next();
    return /[{}()]/.test(char) ? 'bracket' : 'punctuation';
  },
};

interface InHtml {
  inTag: boolean;
  comment: boolean;
}

const htmlParser: StreamParser<InHtml> = {
  name: 'html',
  startState: () => ({ inTag: false, comment: false }),
  token(stream, state) {
    if (state.comment) {
      state.comment = !stream.match(/^.*?-->/) && (stream.skipToEnd(), true);
      return 'comment';
    }
    if (state.inTag) {
      if (stream.eatSpace()) return null;
      if (stream.match(/^\/?>/)) {
        state.inTag = false;
        return 'angleBracket';
      }
      const char = stream.peek() ?? '';
      if (char === '"' || char === "'") {
        stream.next();
        quoted(stream, char);
        return 'string';
      }
      if (stream.match(/^[^\s=>/"']+/)) return 'attributeName';
      stream.next();
      return 'operator';
    }
    if (stream.match('<!--')) {
      state.comment = !stream.match(/^.*?-->/) && (stream.skipToEnd(), true);
      return 'comment';
    }
    if (stream.match(/^<\/?[A-Za-z][\w-]*/) || stream.match(/^<!doctype/i)) {
      state.inTag = true;
      return 'tagName';
    }
    if (stream.match(/^&[#\w]+;/)) return 'atom';
    stream.next();
    stream.match(/^[^<&]+/);
    return null;
  },
};

const STREAMS = {
  javascript: StreamLanguage.define(javascriptParser),
  css: StreamLanguage.define(cssParser),
  html: StreamLanguage.define(htmlParser),
};

/** The editor extension that colours `kind` (none for plain text). */
export function languageOf(kind: CodeKind): Extension {
  if (kind === 'json') return json();
  if (kind === 'text') return [];
  return STREAMS[kind];
}
