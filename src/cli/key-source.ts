// Where a command that talks to a server finds its key: --key-file, else --key, else RULEKEEPER_KEY.
// A key given on a command line is visible to every user of the machine (ps, /proc) and stays in shell
// history, so the documentation never shows one; --key is kept for scripts that already use it.
import { readFileSync } from 'node:fs';

export interface KeyFlags {
  key?: string;
  keyFile?: string;
}

/** The key, or a sentence saying why there is none (the caller exits with it). */
export function readKey(flags: KeyFlags): { key: string } | { error: string } {
  if (flags.keyFile) {
    let text: string;
    try {
      text = readFileSync(flags.keyFile, 'utf8');
    } catch (error) {
      return { error: `cannot read --key-file: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}` };
    }
    const key = text.trim();
    return key ? { key } : { error: '--key-file is empty' };
  }
  const key = flags.key ?? process.env.RULEKEEPER_KEY;
  return key ? { key } : { error: 'give the workspace key with RULEKEEPER_KEY or --key-file FILE' };
}
