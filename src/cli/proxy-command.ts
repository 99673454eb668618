// `rulekeeper proxy`: apply a workspace's active rules to the traffic sent through this machine, and
// `rulekeeper proxy ca`: the certificate to trust for HTTPS.
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { ensureCa } from '../proxy/ca.js';
import { startProxy } from '../proxy/proxy-server.js';
import { createRuleFeed } from '../proxy/rule-feed.js';

interface ProxyFlags {
  server: string;
  key?: string;
  port: string;
  caDir: string;
  allowCode?: boolean;
  codeTimeoutMs: string;
  upstreamTimeoutMs: string;
  allowFiles?: string;
  upstreamCa: string[];
  allowRemote?: boolean;
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
    .option('--key <key>', 'API key of the workspace (default: RULEKEEPER_KEY)')
    .option('--port <port>', 'port to listen on', '8888')
    .option('--ca-dir <dir>', 'where the HTTPS certificate authority is kept', 'data/proxy-ca')
    .option('--allow-code', "run Response and Request rules' code (each call time-limited)")
    .option('--code-timeout-ms <ms>', 'time limit of one code call', '1000')
    .option('--upstream-timeout-ms <ms>', 'answer 504 when the upstream has not answered by then', '30000')
    .option('--allow-files <dir>', 'serve Redirects to local files from this directory')
    .option('--allow-remote', 'serve clients of other machines too (default: this machine only)')
    .option('--upstream-ca <file>', 'also trust this CA for upstream HTTPS (repeatable)', collect, [])
    .action(async (flags: ProxyFlags) => {
      const key = flags.key ?? process.env.RULEKEEPER_KEY;
      if (!key) usage('give the workspace key with --key or RULEKEEPER_KEY');
      const port = integer(flags.port, '--port', 0, 65535);
      const codeTimeoutMs = integer(flags.codeTimeoutMs, '--code-timeout-ms', 1, 60_000);
      const upstreamTimeoutMs = integer(flags.upstreamTimeoutMs, '--upstream-timeout-ms', 1, 3_600_000);
      const ca = await ensureCa(flags.caDir);
      if (ca.created)
        log(`created a certificate authority in ${flags.caDir}: trust ${ca.certPath} for HTTPS`);
      const feed = createRuleFeed({ server: flags.server, key, log });
      await feed.firstAttempt;
      const running = await startProxy({
        port,
        ca,
        feed,
        allowCode: !!flags.allowCode,
        codeTimeoutMs,
        upstreamTimeoutMs,
        ...(flags.allowFiles ? { allowFilesDir: flags.allowFiles } : {}),
        allowRemote: !!flags.allowRemote,
        upstreamCas: flags.upstreamCa.map((file) => readFileSync(file, 'utf8')),
        log,
      });
      log(`listening on port ${running.port} (HTTP and HTTPS; CA: ${ca.certPath})`);
      const stop = async () => {
        feed.stop();
        await running.stop();
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
