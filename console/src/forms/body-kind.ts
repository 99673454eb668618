// What a body or a script is written in, for its colours: pure, so that it is tested on its own.

export type CodeKind = 'json' | 'html' | 'javascript' | 'css' | 'text';

/** What a kind is called in the form. */
export const KIND_LABELS: Record<CodeKind, string> = {
  json: 'JSON',
  html: 'HTML',
  javascript: 'JavaScript',
  css: 'CSS',
  text: 'Plain text',
};

/** What a static body looks like, from its first characters: JSON, HTML or plain text. */
export function guessBodyKind(text: string): CodeKind {
  const start = text.trimStart();
  if (start.startsWith('<')) return 'html';
  if (/^[[{]/.test(start)) return 'json';
  if (/^("|-?\d|true\b|false\b|null\b)/.test(start)) {
    try {
      JSON.parse(text);
      return 'json';
    } catch {
      return 'text';
    }
  }
  return 'text';
}

/** A JSON body laid out with two spaces a level, or null when it does not parse. */
export function prettyJson(text: string): string | null {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return null;
  }
}
