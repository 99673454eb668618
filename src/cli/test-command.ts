// `rulekeeper test FILE`: a team's expected rule behaviour, checked case by case against a server's
// POST /v1/trace or a workspace of the local database; exit 1 when any case fails.
import type { Command } from 'commander';
import { createClient, type paths } from '../client/index.js';
import { AppError } from '../errors.js';
import { createGroupsStore } from '../modules/groups/groups-store.js';
import { createRulesStore } from '../modules/rules/rules-store.js';
import { createListedRulesStore } from '../modules/shared/listed-rules-store.js';
import { createTraceService } from '../modules/trace/trace-service.js';
import type { CaseTrace } from '../rule-tests/compare-case.js';
import { RuleTestFileError, readCases } from '../rule-tests/rule-test-file.js';
import { CaseRefused, type CaseRunner, runCases } from '../rule-tests/run-cases.js';
import { KeyRefusedError } from '../runtime/server-reads.js';
import { readKey } from './key-source.js';
import { type LocalWorkspace, UsageError, withLocalWorkspace } from './local-workspace.js';

interface TestOptions {
  server?: string;
  key?: string;
  keyFile?: string;
  workspace?: string;
  browser?: boolean;
  chromium?: string;
}

type Tracer = (request: Record<string, unknown>) => Promise<CaseTrace>;

class TraceRefused extends Error {}

type TraceBody = NonNullable<paths['/v1/trace']['post']['requestBody']>['content']['application/json'];

/** Traces through a running server, as any client would, with the package's typed client. */
function serverTracer(server: string, key: string): Tracer {
  const client = createClient({ baseUrl: server, key });
  return async (request) => {
    // A case's request is the file's, as written: the server's checks, not the types, judge it.
    const body = { request } as unknown as TraceBody;
    const { data, error, response } = await client.POST('/v1/trace', { body });
    if (!data) {
      const details = (error?.details ?? []).map((d) => `${d.path}: ${d.message}`);
      throw new TraceRefused(`${response.status} ${error?.message ?? ''} ${details.join('; ')}`.trim());
    }
    return data.data as unknown as CaseTrace;
  };
}

/** Traces the workspace of `local` in this process, with the same engine and validation as the API. */
function localTracer({ database, config, principal, changes }: LocalWorkspace): Tracer {
  const { db, dialect } = database;
  const traces = createTraceService({
    db,
    listedRules: createListedRulesStore(db),
    rulesStore: createRulesStore(db, dialect),
    groupsStore: createGroupsStore(db, dialect),
    changes,
    config,
  });
  return async (request) => {
    try {
      return (await traces.trace(principal, { request })) as unknown as CaseTrace;
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      const details = (error.details ?? []).map((d) => `${d.path}: ${d.message}`).join('; ');
      throw new TraceRefused(`${error.message} ${details}`.trim());
    }
  };
}

/** Each case's request traced, its whole expectation compared. */
function traceRunner(trace: Tracer): CaseRunner {
  return async (testCase) => {
    try {
      return { trace: await trace(testCase.request) };
    } catch (error) {
      if (!(error instanceof TraceRefused)) throw error;
      throw new CaseRefused(`the trace was refused: ${error.message}`);
    }
  };
}

async function runFile(file: string, trace: Tracer, out: (line: string) => void): Promise<boolean> {
  const report = await runCases(readCases(file), traceRunner(trace), out);
  return report.failed === 0;
}

export function registerTestCommand(program: Command): void {
  program
    .command('test')
    .description(
      "check a file of rule test cases (JSON or YAML) against a server's rules or a local workspace",
    )
    .argument('<file>')
    .option('--server <url>', 'a running Rulekeeper, e.g. http://127.0.0.1:8080')
    .option('--key-file <file>', 'read the API key for --server from this file (default: RULEKEEPER_KEY)')
    .option('--key <key>', 'the API key itself (visible to other users of the machine: prefer the above)')
    .option('--workspace <name>', 'a workspace of the local database (DATABASE_URL) instead of a server')
    .option(
      '--browser',
      "run the cases in real pages of a headless Chromium (needs the project's Playwright)",
    )
    .option(
      '--chromium <path>',
      'with --browser: the Chromium to run (default: CHROMIUM_PATH, else Playwright’s)',
    )
    .action(async (file: string, options: TestOptions) => {
      const out = (line: string) => process.stdout.write(`${line}\n`);
      try {
        if (options.browser && options.workspace !== undefined)
          throw new RuleTestFileError('--browser follows a server: give --server URL, not --workspace');
        if (options.workspace !== undefined) {
          const passed = await withLocalWorkspace(options.workspace, undefined, (local) =>
            runFile(file, localTracer(local), out),
          );
          process.exitCode = passed ? 0 : 1;
          return;
        }
        const found = readKey(options);
        if (options.keyFile && 'error' in found) throw new RuleTestFileError(found.error);
        if (!options.server || 'error' in found) {
          throw new RuleTestFileError(
            'give --server URL with RULEKEEPER_KEY (or --key-file FILE), or --workspace NAME',
          );
        }
        if (options.browser) {
          const { runFileInBrowser } = await import('./browser-cases.js');
          const chromium = options.chromium ?? process.env.CHROMIUM_PATH;
          process.exitCode = (await runFileInBrowser(file, options.server, found.key, chromium, out)) ? 0 : 1;
          return;
        }
        process.exitCode = (await runFile(file, serverTracer(options.server, found.key), out)) ? 0 : 1;
      } catch (error) {
        const usage =
          error instanceof RuleTestFileError ||
          error instanceof UsageError ||
          error instanceof KeyRefusedError;
        if (!usage && (error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        process.stderr.write(`rulekeeper test: ${(error as Error).message}\n`);
        process.exitCode = 2;
      }
    });
}
