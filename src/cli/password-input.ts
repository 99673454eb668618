// A password for the command line, never an argument (arguments are seen by every user of the
// machine in the process list, and kept in shell histories): read from a terminal without echo, asked
// twice, or from standard input when it is piped (`printf %s "$PASSWORD" | rulekeeper users create …`).
import { UsageError } from './local-workspace.js';

/** Reads standard input to its end: a piped password, without the line end that `echo` adds. */
async function piped(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

/** One line typed at the terminal, shown as nothing (raw mode: the terminal echoes nothing). */
function hidden(prompt: string): Promise<string> {
  const input = process.stdin;
  process.stderr.write(prompt);
  input.setRawMode(true);
  input.resume();
  input.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    let typed = '';
    const done = (error?: Error) => {
      input.removeListener('data', onData);
      input.setRawMode(false);
      input.pause();
      process.stderr.write('\n');
      if (error) reject(error);
      else resolve(typed);
    };
    const onData = (text: string) => {
      for (const char of text) {
        if (char === '\r' || char === '\n') return done();
        if (char === '\u0003' || char === '\u0004') return done(new UsageError('no password given'));
        if (char === '\u007f' || char === '\b') typed = typed.slice(0, -1);
        else typed += char;
      }
    };
    input.on('data', onData);
  });
}

/** The new password: typed twice at a terminal, or piped on standard input. */
export async function readNewPassword(): Promise<string> {
  if (!process.stdin.isTTY) return piped();
  const password = await hidden('Password (at least 12 characters): ');
  if ((await hidden('Again: ')) !== password) throw new UsageError('the two passwords differ');
  return password;
}
