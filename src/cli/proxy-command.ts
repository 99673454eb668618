// `rulekeeper proxy`: apply a workspace's active rules to the traffic sent through this machine, and
// `rulekeeper proxy ca`: the certificate to trust for HTTPS.
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { ENVIRONMENT_NAME_PATTERN } from '../model/environment-names.js';
import { ensureCa } from '../proxy/ca.js';
import { startProxy } from '../proxy/proxy-server.js';
import { createRuleFeed } from '../proxy/rule-feed.js';
import { createHitReporter } from '../runtime/index.js';
import { readKey } from './key-source.js';

interface ProxyFlags {
  server: string;
  key?: string;
  keyFile?: string;
  environment?: string;
  port: string;
  caDir: string;
  allowCode?: boolean;
  codeTimeoutMs: string;
  codeMemoryMb: string;
  upstreamTimeoutMs: string;
  maxBodyBytes: string;
  allowFiles?: string;
  upstreamCa: string[];
  allowRemote?: boolean;
  /** false with --no-hits. */
  hits: boolean;
  hitsIntervalMs: string;
}

const log = (message: string) => process.stderr.write(`rulekeeper proxy: ${message}\n`);

function usage(message: string): never {
  log(message);
  process.exit(2);
}

function integer(value: string, name: string, min: number, max: number): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < min || number > max) usage(`${name} must be ${min} to ${max}`);
  return number;
}

export function registerProxyCommand(program: Command): void {
  const proxy = program
    .command('proxy')
    .description("an HTTP and HTTPS proxy that applies a workspace's active rules to traffic through it")
    .option('--server <url>', 'the Rulekeeper server to read rules from', 'http://127.0.0.1:8080')
    .option('--key-file <file>', 'read the API key of the workspace from this file (default: RULEKEEPER_KEY)')
    .option('--key <key>', 'the API key itself (visible to other users of the machine: prefer the above)')
    .option(
      '--environment <name>',
      "the environment whose variables' values the rules act with (default: the key's, else default)",
    )
    .option('--port <port>', 'port to listen on', '8888')
    .option('--ca-dir <dir>', 'where the HTTPS certificate authority is kept', 'data/proxy-ca')
    .option(
      '--allow-code',
      "run Response and Request rules' code (in a worker, each call time- and memory-limited)",
    )
    .option('--code-timeout-ms <ms>', 'time limit of one code call', '1000')
    .option('--code-memory-mb <mb>', "memory limit of the code's worker", '64')
    .option(
      '--max-body-bytes <bytes>',
      'the most of a body a rule may read whole (past it: streamed unchanged)',
      '10485760',
    )
    .option('--upstream-timeout-ms <ms>', 'answer 504 when the upstream has not answered by then', '30000')
    .option('--allow-files <dir>', 'serve Redirects to local files from this directory')
    .option('--allow-remote', 'serve clients of other machines too (default: this machine only)')
    .option('--upstream-ca <file>', 'also trust this CA for upstream HTTPS (repeatable)', collect, [])
    .option('--no-hits', 'do not tell the server which rules acted (rule ids and counts, every 10 s)')
    .option('--hits-interval-ms <ms>', 'how often hits are reported, at most 10 s', '10000')
    .action(async (flags: ProxyFlags) => {
      const found = readKey(flags);
      if ('error' in found) usage(found.error);
      const { key } = found;
      const port = integer(flags.port, '--port', 0, 65535);
      const codeTimeoutMs = integer(flags.codeTimeoutMs, '--code-timeout-ms', 1, 60_000);
      const codeMemoryMb = integer(flags.codeMemoryMb, '--code-memory-mb', 8, 4096);
      const maxBodyBytes = integer(flags.maxBodyBytes, '--max-body-bytes', 0, 1024 * 1024 * 1024);
      const upstreamTimeoutMs = integer(flags.upstreamTimeoutMs, '--upstream-timeout-ms', 1, 3_600_000);
      const hitsIntervalMs = integer(flags.hitsIntervalMs, '--hits-interval-ms', 1, 10_000);
      const { environment } = flags;
      if (environment !== undefined && !ENVIRONMENT_NAME_PATTERN.test(environment))
        usage('--environment must be an environment name (letters, digits, _ . -; at most 64)');
      const ca = await ensureCa(flags.caDir);
      if (ca.created)
        log(`created a certificate authority in ${flags.caDir}: trust ${ca.certPath} for HTTPS`);
      const feed = createRuleFeed({
        server: flags.server,
        key,
        log,
        ...(environment === undefined ? {} : { environment }),
      });
      await feed.firstAttempt;
      const hits = flags.hits
        ? createHitReporter({ server: flags.server, key, source: 'proxy', intervalMs: hitsIntervalMs, log })
        : undefined;
      const running = await startProxy({
        port,
        ca,
        feed,
        allowCode: !!flags.allowCode,
        codeTimeoutMs,
        codeMemoryMb,
        upstreamTimeoutMs,
        maxBodyBytes,
        ...(flags.allowFiles ? { allowFilesDir: flags.allowFiles } : {}),
        allowRemote: !!flags.allowRemote,
        upstreamCas: flags.upstreamCa.map((file) => readFileSync(file, 'utf8')),
        log,
        ...(hits ? { hits } : {}),
      });
      log(`listening on port ${running.port} (HTTP and HTTPS; CA: ${ca.certPath})`);
      const stop = async () => {
        feed.stop();
        await running.stop();
        // What acted since the last report goes before the proxy ends.
        await hits?.close();
        process.exit(0);
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });

  proxy
    .command('ca')
    .description("print the certificate of the proxy's certificate authority (created if needed), to trust")
    .option('--ca-dir <dir>', 'where the certificate authority is kept', 'data/proxy-ca')
    .action(async (flags: { caDir: string }) => {
      process.stdout.write((await ensureCa(flags.caDir)).cert);
    });
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}
