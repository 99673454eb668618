// A new database, tried as a new operator would: `rulekeeper serve` prints the first key and a setup
// link, whose acceptance makes the first owner a person with an email and a password; the compiled
// `rulekeeper invites create` prints a link the running service accepts; `rulekeeper users create`
// takes the password from standard input (never an argument), `users list` shows the user, and
// `users disable` stops their sign-in on the running service.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type CliResult, runCli, type ScratchDatabase, scratchDatabase } from '../helpers/cli.js';
import { type ServiceProcess, startService } from '../helpers/service-process.js';

const BIN = fileURLToPath(new URL('../../bin/rulekeeper.js', import.meta.url));
const PASSWORD = 'correct horse battery staple';

/** `rulekeeper ...args` with `input` piped to its standard input. */
function runWithInput(args: string[], env: Record<string, string>, input: string): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [BIN, ...args],
      { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env }, timeout: 120_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : null) : 0;
        resolve({ code, stdout, stderr });
      },
    );
    child.stdin?.end(input);
  });
}

let database: ScratchDatabase;
let service: ServiceProcess;
let env: Record<string, string>;
beforeAll(async () => {
  database = await scratchDatabase('sqlite');
  env = { DATABASE_URL: database.url };
});
afterAll(async () => {
  await service?.stop();
  await database?.drop();
});

async function post(path: string, body: unknown) {
  const response = await fetch(`${service.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as any };
}

const tokenIn = (text: string) => /#\/accept\?token=([A-Za-z0-9_-]{43})/.exec(text)?.[1];

// Each command starts a process: on a loaded two-core machine, several seconds each.
it('prints a setup link beside the first key; invites and users from the shell reach the service', {
  timeout: 180_000,
}, async () => {
  service = await startService(env);
  const output = service.output();
  expect(output).toMatch(/this API key[^\n]*\n {2}rk_[A-Za-z0-9_-]{43}\n/);
  const setupLine = /open this setup link[^\n]*\n {2}(\S+)\n/.exec(output)?.[1] as string;
  expect(setupLine.startsWith(`${service.url}/#/accept?token=`)).toBe(true);
  const setup = tokenIn(setupLine) as string;

  const owner = await post('/v1/invites/accept', {
    token: setup,
    email: 'owner@example.com',
    password: PASSWORD,
  });
  expect(owner.status).toBe(200);
  expect(owner.body.data.workspaces).toEqual([expect.objectContaining({ name: 'default', role: 'owner' })]);
  expect(
    (await post('/v1/invites/accept', { token: setup, email: 'x@example.com', password: PASSWORD })).status,
  ).toBe(410);

  const invited = await runCli(
    ['invites', 'create', '--workspace', 'default', '--email', 'bob@example.com', '--role', 'editor'],
    env,
  );
  expect(invited.code, invited.stderr).toBe(0);
  expect(invited.stdout).toMatch(/^Invited bob@example.com to default as editor\. /);
  const bob = await post('/v1/invites/accept', { token: tokenIn(invited.stdout), password: PASSWORD });
  expect(bob.status).toBe(200);
  expect(bob.body.data.workspaces).toEqual([expect.objectContaining({ name: 'default', role: 'editor' })]);

  const created = await runWithInput(
    ['users', 'create', '--email', 'Carol@Example.com', '--name', 'carol', '--json'],
    env,
    `${PASSWORD}\n`,
  );
  expect(created.code, created.stderr).toBe(0);
  expect(JSON.parse(created.stdout)).toMatchObject({ name: 'carol', email: 'carol@example.com' });
  expect(created.stdout + created.stderr).not.toContain(PASSWORD);
  const signIn = { email: 'carol@example.com', password: PASSWORD };
  expect((await post('/v1/session', signIn)).status).toBe(200);

  const short = await runWithInput(['users', 'create', '--email', 'dan@example.com'], env, 'short\n');
  expect(short).toMatchObject({ code: 1 });
  expect(short.stderr).toMatch(
    /^rulekeeper: Invalid user payload: \/password must be 12 to 256 characters\n$/,
  );

  const listed = await runCli(['users', 'list', '--json'], env);
  const users = JSON.parse(listed.stdout) as {
    name: string;
    email: string | null;
    disabledAt: number | null;
  }[];
  expect(users.map((u) => u.email)).toEqual(
    expect.arrayContaining(['owner@example.com', 'bob@example.com', 'carol@example.com', null]),
  );
  expect(listed.stdout).not.toMatch(/scrypt/);

  const disabled = await runCli(['users', 'disable', '--email', 'carol@example.com'], env);
  expect(disabled).toMatchObject({ code: 0, stdout: 'disabled carol@example.com\n' });
  expect((await post('/v1/session', signIn)).status).toBe(401);
  expect(await runCli(['users', 'disable', '--email', 'carol@example.com'], env)).toMatchObject({ code: 1 });
});
