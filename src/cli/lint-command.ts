// `rulekeeper lint`: what is wrong with a workspace's rules as a whole, from a server's GET /v1/lint or
// a workspace of the local database, for CI: exit 1 when a finding reaches --fail-on.
import type { Command } from 'commander';
import { SEVERITIES, type Severity } from '../model/finding.js';
import type { LintData } from '../modules/lint/lint-schemas.js';
import { lintOnThisThread } from '../modules/lint/lint-service.js';
import { UsageError, withLocalWorkspace } from './local-workspace.js';
import { readFromServer } from './server-read.js';

interface LintOptions {
  server?: string;
  workspace?: string;
  failOn: string;
  json?: boolean;
}

/** From a running server (see server-read.ts). */
function fromServer(server: string): Promise<LintData> {
  return readFromServer<LintData>(server, (client) => client.GET('/v1/lint'));
}

function fromWorkspace(name: string): Promise<LintData> {
  return withLocalWorkspace(name, undefined, ({ database, changes, principal }) =>
    lintOnThisThread(database.db, changes).lint(principal),
  );
}

function print(data: LintData, out: (line: string) => void): void {
  const names = new Map(data.rules.map((rule) => [rule.id, rule.name]));
  for (const finding of data.findings) {
    const rules = finding.ruleIds.map((id) => `"${names.get(id) ?? id}" (${id})`).join(', ');
    out(`${finding.severity.padEnd(7)} ${finding.code}  ${rules}`);
    out(`        ${finding.message}`);
    out(`        hint: ${finding.hint}`);
  }
  const { error, warning, info } = data.counts;
  if (data.findings.length > 0) out('');
  out(
    `${error} ${error === 1 ? 'error' : 'errors'}, ${warning} ${warning === 1 ? 'warning' : 'warnings'}, ${info} info`,
  );
}

export function registerLintCommand(program: Command): void {
  program
    .command('lint')
    .description("find rules that never act, loop or do nothing, on a server's or a local workspace's rules")
    .option('--server <url>', 'a running Rulekeeper, e.g. http://127.0.0.1:8080 (key: RULEKEEPER_KEY)')
    .option('--workspace <name>', 'a workspace of the local database (DATABASE_URL) instead of a server')
    .option(
      '--fail-on <severity>',
      'exit 1 when a finding is of this severity or worse: error, warning or info',
      'error',
    )
    .option('--json', 'print the answer of GET /v1/lint as JSON')
    .action(async (options: LintOptions) => {
      const out = (line: string) => process.stdout.write(`${line}\n`);
      try {
        const failOn = options.failOn as Severity;
        if (!SEVERITIES.includes(failOn)) throw new UsageError('--fail-on must be error, warning or info');
        if ((options.server === undefined) === (options.workspace === undefined)) {
          throw new UsageError('give either --server URL (with RULEKEEPER_KEY) or --workspace NAME');
        }
        const data = options.server
          ? await fromServer(options.server)
          : await fromWorkspace(options.workspace as string);
        if (options.json) out(JSON.stringify(data, null, 2));
        else print(data, out);
        const worst = SEVERITIES.indexOf(failOn);
        const failed = data.findings.some((finding) => SEVERITIES.indexOf(finding.severity) <= worst);
        process.exitCode = failed ? 1 : 0;
      } catch (error) {
        if (!(error instanceof UsageError)) throw error;
        process.stderr.write(`rulekeeper lint: ${error.message}\n`);
        process.exitCode = 2;
      }
    });
}
