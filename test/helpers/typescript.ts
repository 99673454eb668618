// Compiling a file of TypeScript as a user of our types would, for the tests that prove a mistake does
// not compile (each `@ts-expect-error` must meet an error, or it is one itself).
import ts from 'typescript';

/** Every problem TypeScript (strict) reports for `file`, as text; none for a file that compiles. */
export function typeProblems(file: string, options: ts.CompilerOptions): string[] {
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    ...options,
  });
  return ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
}
