// `rulekeeper test FILE` (or `--suite NAME`, a suite kept in the workspace): a team's expected rule
// behaviour, checked case by case against a server's POST /v1/trace or a workspace of the local
// database; exit 1 when any case fails.
import type { Command } from 'commander';
import { createClient, type paths } from '../client/index.js';
import { AppError } from '../errors.js';
import { ENVIRONMENT_NAME_PATTERN } from '../model/environment-names.js';
import { createGroupsStore } from '../modules/groups/groups-store.js';
import { createRulesStore } from '../modules/rules/rules-store.js';
import { evaluationVariablesOn } from '../modules/shared/evaluation-environment.js';
import { createListedRulesStore } from '../modules/shared/listed-rules-store.js';
import { createTestSuitesStore } from '../modules/test-suites/test-suites-store.js';
import { createTraceService } from '../modules/trace/trace-service.js';
import type { CaseTrace } from '../rule-tests/compare-case.js';
import { checkCases, type RuleTestCase, RuleTestFileError, readCases } from '../rule-tests/rule-test-file.js';
import { CaseRefused, type CaseRunner, runCases } from '../rule-tests/run-cases.js';
import { KeyRefusedError } from '../runtime/server-reads.js';
import { readKey } from './key-source.js';
import { type LocalWorkspace, UsageError, withLocalWorkspace } from './local-workspace.js';

interface TestOptions {
  suite?: string;
  server?: string;
  key?: string;
  keyFile?: string;
  workspace?: string;
  browser?: boolean;
  chromium?: string;
  environment?: string;
}

type Tracer = (request: Record<string, unknown>) => Promise<CaseTrace>;

class TraceRefused extends Error {}

type TraceBody = NonNullable<paths['/v1/trace']['post']['requestBody']>['content']['application/json'];

/** Traces through a running server, as any client would, with the package's typed client. */
function serverTracer(server: string, key: string, environment: string | undefined): Tracer {
  const client = createClient({ baseUrl: server, key });
  return async (request) => {
    // A case's request is the file's, as written: the server's checks, not the types, judge it.
    const body = { request, ...(environment === undefined ? {} : { environment }) } as unknown as TraceBody;
    const { data, error, response } = await client.POST('/v1/trace', { body });
    if (!data) {
      const details = (error?.details ?? []).map((d) => `${d.path}: ${d.message}`);
      throw new TraceRefused(`${response.status} ${error?.message ?? ''} ${details.join('; ')}`.trim());
    }
    return data.data as unknown as CaseTrace;
  };
}

/** Traces the workspace of `local` in this process, with the same engine and validation as the API. */
function localTracer(
  { database, config, principal, changes }: LocalWorkspace,
  environment: string | undefined,
): Tracer {
  const { db, dialect } = database;
  const traces = createTraceService({
    db,
    listedRules: createListedRulesStore(db),
    rulesStore: createRulesStore(db, dialect),
    groupsStore: createGroupsStore(db, dialect),
    changes,
    config,
    variables: evaluationVariablesOn(db),
  });
  return async (request) => {
    try {
      const body = { request, ...(environment === undefined ? {} : { environment }) };
      return (await traces.trace(principal, body)) as unknown as CaseTrace;
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

/** Where the cases come from: a file, or a suite kept in the workspace (by name). */
type Source = { file: string } | { suite: string };

const noSuite = (name: string) =>
  new RuleTestFileError(`no test suite named "${name}" in the workspace (see GET /v1/test-suites)`);

/** The cases of the workspace's suite `name`, read through the server's API. */
async function serverSuite(server: string, key: string, name: string): Promise<RuleTestCase[]> {
  const client = createClient({ baseUrl: server, key });
  const refused = (status: number, error?: { message?: string }) =>
    new RuleTestFileError(`the server refused to read the suite: ${status} ${error?.message ?? ''}`.trim());
  const listed = await client.GET('/v1/test-suites', { params: { query: { name } } });
  if (!listed.data) throw refused(listed.response.status, listed.error);
  const id = listed.data.data[0]?.id;
  if (id === undefined) throw noSuite(name);
  const suite = await client.GET('/v1/test-suites/{suiteId}', { params: { path: { suiteId: id } } });
  // Deleted between the two reads.
  if (suite.response.status === 404) throw noSuite(name);
  if (!suite.data) throw refused(suite.response.status, suite.error);
  return checkCases(suite.data.data.cases, `suite "${name}"`);
}

/** The cases of the workspace's suite `name`, read from the local database. */
async function localSuite({ database, principal }: LocalWorkspace, name: string): Promise<RuleTestCase[]> {
  const store = createTestSuitesStore(database.db, database.dialect);
  const id = await store.idOfName(database.db, principal.workspaceId, name.trim());
  const row = id === undefined ? undefined : await store.find(database.db, principal.workspaceId, id);
  if (!row) throw noSuite(name);
  return checkCases(JSON.parse(row.cases), `suite "${name}"`);
}

async function runSource(
  cases: () => Promise<RuleTestCase[]>,
  trace: Tracer,
  out: (line: string) => void,
): Promise<boolean> {
  const report = await runCases(await cases(), traceRunner(trace), out);
  return report.failed === 0;
}

/** The file or the suite asked for: one of them, never both. */
function sourceOf(file: string | undefined, options: TestOptions): Source {
  if ((file === undefined) === (options.suite === undefined))
    throw new RuleTestFileError('give a FILE of cases or --suite NAME (one of them)');
  return file === undefined ? { suite: options.suite as string } : { file };
}

export function registerTestCommand(program: Command): void {
  program
    .command('test')
    .description(
      "check a file of rule test cases (JSON or YAML) against a server's rules or a local workspace",
    )
    .argument('[file]')
    .option('--suite <name>', 'a test suite kept in the workspace (/v1/test-suites), instead of a file')
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
    .option(
      '--environment <name>',
      "the environment whose variables' values the rules act with (default: the key's, else default)",
    )
    .action(async (file: string | undefined, options: TestOptions) => {
      const out = (line: string) => process.stdout.write(`${line}\n`);
      try {
        const source = sourceOf(file, options);
        const { environment } = options;
        if (environment !== undefined && !ENVIRONMENT_NAME_PATTERN.test(environment))
          throw new RuleTestFileError(
            '--environment must be an environment name (letters, digits, _ . -; at most 64)',
          );
        if (options.browser && options.workspace !== undefined)
          throw new RuleTestFileError('--browser follows a server: give --server URL, not --workspace');
        if (options.workspace !== undefined) {
          const passed = await withLocalWorkspace(options.workspace, undefined, (local) =>
            runSource(
              async () => ('file' in source ? readCases(source.file) : localSuite(local, source.suite)),
              localTracer(local, environment),
              out,
            ),
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
          const cases =
            'file' in source
              ? { file: source.file }
              : { cases: await serverSuite(options.server, found.key, source.suite) };
          const passed = await runFileInBrowser(cases, options.server, found.key, chromium, out, environment);
          process.exitCode = passed ? 0 : 1;
          return;
        }
        const { server, key } = { server: options.server, key: found.key };
        const cases = async () =>
          'file' in source ? readCases(source.file) : serverSuite(server, key, source.suite);
        process.exitCode = (await runSource(cases, serverTracer(server, key, environment), out)) ? 0 : 1;
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
