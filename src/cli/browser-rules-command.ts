// `rulekeeper browser-rules`: a workspace's active rules as Chrome declarativeNetRequest rules, from a
// server's GET /v1/browser-rules or a workspace of the local database: the JSON to install, or a
// summary of what compiled and why the rest did not.
import type { Command } from 'commander';
import type { BrowserRuleReport, DnrRule } from '../model/browser-rule.js';
import { createBrowserRulesService } from '../modules/browser-rules/browser-rules-service.js';
import { evaluationVariablesOn } from '../modules/shared/evaluation-environment.js';
import { createListedRulesStore } from '../modules/shared/listed-rules-store.js';
import { UsageError, withLocalWorkspace } from './local-workspace.js';
import { readFromServer } from './server-read.js';

interface BrowserRulesOptions {
  server?: string;
  workspace?: string;
  json?: boolean;
}

interface BrowserRulesData {
  rules: DnrRule[];
  report: BrowserRuleReport[];
}

/** From a running server (see server-read.ts). */
function fromServer(server: string): Promise<BrowserRulesData> {
  return readFromServer<BrowserRulesData>(server, (client) => client.GET('/v1/browser-rules'));
}

function fromWorkspace(name: string): Promise<BrowserRulesData> {
  return withLocalWorkspace(name, undefined, async ({ database, changes, principal }) => {
    const service = createBrowserRulesService({
      listedRules: createListedRulesStore(database.db),
      changes,
      variables: evaluationVariablesOn(database.db),
    });
    const json = (await service.browserRules(principal)).toString('utf8');
    return (JSON.parse(json) as { data: BrowserRulesData }).data;
  });
}

function print({ rules, report }: BrowserRulesData, out: (line: string) => void): void {
  for (const entry of report) {
    if (entry.status === 'compiled') continue;
    out(`${entry.status.padEnd(12)} ${entry.ruleId}`);
    for (const pair of entry.pairs ?? []) {
      if (pair.status === 'compiled') continue;
      for (const reason of pair.reasons) out(`             pair ${pair.index}: ${reason}`);
    }
    if (!entry.pairs) for (const reason of entry.reasons) out(`             ${reason}`);
  }
  const count = (status: string) => report.filter((entry) => entry.status === status).length;
  if (report.some((entry) => entry.status !== 'compiled')) out('');
  out(
    `${rules.length} browser ${rules.length === 1 ? 'rule' : 'rules'} from ${report.length} active ` +
      `${report.length === 1 ? 'rule' : 'rules'}: ${count('compiled')} compiled, ${count('partial')} partial, ` +
      `${count('not_compiled')} not compiled`,
  );
}

export function registerBrowserRulesCommand(program: Command): void {
  program
    .command('browser-rules')
    .description("a server's or a local workspace's active rules as Chrome declarativeNetRequest rules")
    .option('--server <url>', 'a running Rulekeeper, e.g. http://127.0.0.1:8080 (key: RULEKEEPER_KEY)')
    .option('--workspace <name>', 'a workspace of the local database (DATABASE_URL) instead of a server')
    .option('--json', 'print the answer of GET /v1/browser-rules as JSON (rules and report)')
    .action(async (options: BrowserRulesOptions) => {
      const out = (line: string) => process.stdout.write(`${line}\n`);
      try {
        if ((options.server === undefined) === (options.workspace === undefined)) {
          throw new UsageError('give either --server URL (with RULEKEEPER_KEY) or --workspace NAME');
        }
        const data = options.server
          ? await fromServer(options.server)
          : await fromWorkspace(options.workspace as string);
        if (options.json) out(JSON.stringify(data, null, 2));
        else print(data, out);
      } catch (error) {
        if (!(error instanceof UsageError)) throw error;
        process.stderr.write(`rulekeeper browser-rules: ${error.message}\n`);
        process.exitCode = 2;
      }
    });
}
