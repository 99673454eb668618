// What a read-only command (lint, browser-rules) asks a running server, through the package's typed
// client: the key from RULEKEEPER_KEY (never a flag: it would show in `ps`), and the answer's data or
// a UsageError saying why there is none.
import { createClient, type RulekeeperClient } from '../client/index.js';
import { UsageError } from './local-workspace.js';

interface Answer {
  data?: { data: unknown };
  error?: { message?: string };
  response: Response;
}

export async function readFromServer<T>(
  server: string,
  ask: (client: RulekeeperClient) => Promise<Answer>,
): Promise<T> {
  const key = process.env.RULEKEEPER_KEY;
  if (!key) throw new UsageError('set RULEKEEPER_KEY to an API key (a read key is enough) for --server');
  const answer = await ask(createClient({ baseUrl: server, key })).catch((error: Error) => {
    throw new UsageError(`cannot reach ${server}: ${error.message}`);
  });
  if (!answer.data) {
    throw new UsageError(
      `${server} answered ${answer.response.status} ${answer.error?.message ?? ''}`.trim(),
    );
  }
  return answer.data.data as T;
}
