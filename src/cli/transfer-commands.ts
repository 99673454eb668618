// `rulekeeper import FILE` and `rulekeeper export`: Requestly files in and out of a workspace of the
// local database, with the same checks, report and single transaction as POST /v1/import.
import { closeSync, createReadStream, createWriteStream, openSync, statSync } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { SingleBar } from 'cli-progress';
import type { Command } from 'commander';
import { AppError } from '../errors.js';
import { jsonArrayPieces } from '../http/replies.js';
import { createIdempotencyService } from '../modules/idempotency/idempotency-service.js';
import { createIdempotencyStore } from '../modules/idempotency/idempotency-store.js';
import { lintOnThisThread } from '../modules/lint/lint-service.js';
import { evaluationVariablesOn } from '../modules/shared/evaluation-environment.js';
import { withFindings } from '../modules/transfer/import-warnings.js';
import { readJsonArray, skimRecord } from '../modules/transfer/json-array-reader.js';
import type { ImportResult } from '../modules/transfer/transfer-schemas.js';
import { createTransferService } from '../modules/transfer/transfer-service.js';
import { createTransferStore } from '../modules/transfer/transfer-store.js';
import { type LocalWorkspace, UsageError, withLocalWorkspace } from './local-workspace.js';

interface ImportFlags {
  workspace: string;
  user?: string;
  dryRun?: boolean;
  mode: string;
  onError: string;
  json?: boolean;
}

function transferService({ database, config, changes }: LocalWorkspace) {
  const { db } = database;
  const idempotency = createIdempotencyService({ db, store: createIdempotencyStore() });
  const variables = evaluationVariablesOn(db);
  return createTransferService({ db, store: createTransferStore(), idempotency, changes, config, variables });
}

/** A progress bar on a terminal only: a pipe or a file gets the report alone. */
function progressBar(): { update(done: number, total: number): void; stop(): void } {
  if (!process.stderr.isTTY) return { update() {}, stop() {} };
  const bar = new SingleBar({ format: 'importing records [{bar}] {value}/{total}', stream: process.stderr });
  let started = false;
  return {
    update(done, total) {
      if (!started) bar.start(total, 0);
      started = true;
      bar.update(done);
    },
    stop: () => started && bar.stop(),
  };
}

function printReport(report: ImportResult): void {
  const out = (line: string) => process.stdout.write(`${line}\n`);
  for (const item of report.items) {
    // The record's 0-based index, as in the pointers (`/3/pairs/0`), its name and ids beside it.
    const ids = item.id === null ? (item.sourceId ?? '') : `${item.sourceId ?? '(no id)'} → ${item.id}`;
    const record = `record ${item.index}${item.name === null ? '' : ` "${item.name}"`}${ids ? ` (${ids})` : ''}`;
    if (item.outcome === 'failed') {
      out(`${record}: failed: ${item.message}`);
      for (const detail of item.details ?? []) out(`    ${detail.path}: ${detail.message}`);
    }
    for (const warning of item.warnings) out(`${record}: ${warning}`);
  }
  const summary = `${report.created} created, ${report.updated} updated, ${report.failed} failed`;
  out(report.dryRun ? `${summary} (dry run: nothing was written)` : summary);
}

export function registerTransferCommands(program: Command): void {
  program
    .command('import')
    .description(
      'import a Requestly export (JSON array of rules and groups) into a workspace, in one transaction',
    )
    .argument('<file>')
    .requiredOption('--workspace <name>', 'workspace name')
    .option('--user <name>', 'who the objects are written by (default: the workspace owner)')
    .option('--dry-run', 'check and report only; nothing is written')
    .option('--mode <mode>', 'copy (new ids) or overwrite (replace objects with the same id)', 'copy')
    .option(
      '--on-error <mode>',
      'abort (nothing written if any record fails) or skip (write the valid ones)',
      'abort',
    )
    .option('--json', 'print the report as JSON')
    .action(async (file: string, flags: ImportFlags) => {
      try {
        if (!['copy', 'overwrite'].includes(flags.mode))
          throw new UsageError('--mode must be copy or overwrite');
        if (!['abort', 'skip'].includes(flags.onError))
          throw new UsageError('--on-error must be abort or skip');
        try {
          if (!statSync(file).isFile()) throw new Error('not a file');
          closeSync(openSync(file, 'r'));
        } catch (error) {
          throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
        }
        const options = {
          dryRun: flags.dryRun ?? false,
          mode: flags.mode as 'copy' | 'overwrite',
          onError: flags.onError as 'abort' | 'skip',
        };
        const report = await withLocalWorkspace(flags.workspace, flags.user, async (local) => {
          const bar = progressBar();
          try {
            // Read as a stream, twice (groups first): a 100,000-record file is never whole in memory.
            const records = (pass: 'first' | 'second') =>
              readJsonArray(createReadStream(file), pass === 'first' ? skimRecord : undefined);
            const result = await transferService(local).importStream(
              local.principal,
              records,
              options,
              bar.update,
            );
            const data = result.data;
            if (data.dryRun || data.created + data.updated === 0) return data;
            const lint = lintOnThisThread(local.database.db, local.changes);
            return withFindings(data, (await lint.lint(local.principal)).findings);
          } finally {
            bar.stop();
          }
        });
        if (flags.json) process.stdout.write(`${JSON.stringify(report)}\n`);
        else printReport(report);
        process.exitCode = report.failed > 0 ? 1 : 0;
      } catch (error) {
        if (error instanceof AppError) {
          // The import as a whole was refused (not a Requestly file, or a failure with abort).
          const details = error.details ?? [];
          if (flags.json)
            process.stdout.write(
              `${JSON.stringify({ message: error.message, code: error.code, details })}\n`,
            );
          else {
            process.stdout.write(`${error.message}: nothing was written\n`);
            for (const detail of details)
              process.stdout.write(`    ${detail.path || '/'}: ${detail.message}\n`);
          }
          process.exitCode = 1;
          return;
        }
        if (!(error instanceof UsageError)) throw error;
        process.stderr.write(`rulekeeper import: ${error.message}\n`);
        process.exitCode = 2;
      }
    });

  program
    .command('export')
    .description("write a workspace's groups and rules as a Requestly-compatible JSON file")
    .requiredOption('--workspace <name>', 'workspace name')
    .option('--output <file>', 'where to write it (default: standard output)')
    .option(
      '--format <format>',
      "rulekeeper (default: rules as the API returns them) or requestly (the shapes Requestly's app stores)",
      'rulekeeper',
    )
    .option(
      '--environment <name>',
      'whose variables {{NAME}} takes (requestly: always, in this one, else default); secrets stay as written',
    )
    .action(async (flags: { workspace: string; output?: string; format: string; environment?: string }) => {
      try {
        if (flags.format !== 'rulekeeper' && flags.format !== 'requestly') {
          throw new UsageError(
            `--format must be rulekeeper or requestly, not ${JSON.stringify(flags.format)}`,
          );
        }
        const format = flags.format;
        await withLocalWorkspace(flags.workspace, undefined, async (local) => {
          const transfer = transferService(local);
          const query = flags.environment === undefined ? {} : { environment: flags.environment };
          const environment = await transfer.exportEnvironment(local.principal, query, format);
          if (environment)
            process.stderr.write(`rulekeeper export: variables of the environment ${environment.name}\n`);
          const records = transfer.export(local.principal, undefined, format, environment);
          const pieces = Readable.from(jsonArrayPieces(records));
          await pipeline(pieces, flags.output ? createWriteStream(flags.output) : process.stdout, {
            end: !!flags.output,
          });
        });
      } catch (error) {
        if (!(error instanceof UsageError)) throw error;
        process.stderr.write(`rulekeeper export: ${error.message}\n`);
        process.exitCode = 2;
      }
    });
}
