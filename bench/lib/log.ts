// Progress lines of the run, each with the seconds since it started.
const began = performance.now();

export function log(line: string): void {
  process.stdout.write(`[${((performance.now() - began) / 1000).toFixed(1)}s] ${line}\n`);
}
