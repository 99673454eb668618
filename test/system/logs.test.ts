// What an operator reads: JSON lines when the logs are collected (not a terminal, the default under a
// supervisor), one readable line per event when asked for (and on a terminal, which LOG_FORMAT=auto detects).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type ServiceProcess, startService } from '../helpers/service-process.js';

let service: ServiceProcess | undefined;
afterEach(async () => {
  await service?.stop();
  service = undefined;
});

async function logsOf(format: string | undefined): Promise<string[]> {
  const database = join(mkdtempSync(join(tmpdir(), 'rk-logs-')), 'logs.db');
  service = await startService({
    DATABASE_URL: `sqlite:${database}`,
    LOG_LEVEL: 'info',
    ...(format ? { LOG_FORMAT: format } : {}),
  });
  const answer = await fetch(`${service.url}/v1/rules`);
  expect(answer.status).toBe(401);
  await service.stop();
  return service
    .output()
    .split('\n')
    .filter((line) => line.includes('request completed'));
}

describe('logs', () => {
  it('are JSON lines when they do not go to a terminal', async () => {
    const [completed] = await logsOf(undefined);
    expect(JSON.parse(completed ?? '')).toMatchObject({ level: 30, res: { statusCode: 401 } });
  });

  it('are one readable line per event with LOG_FORMAT=pretty, with the method, path and status', async () => {
    const [completed] = await logsOf('pretty');
    expect(completed).toMatch(
      /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: 401 request completed \{"reqId":"[^"]+","responseTime":/,
    );
    const lines = service?.output().split('\n') ?? [];
    expect(lines.some((line) => /INFO: GET \/v1\/rules incoming request/.test(line))).toBe(true);
    expect(lines.some((line) => line.startsWith('{'))).toBe(false);
  });
});
