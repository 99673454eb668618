// The service's own answers, byte for byte, for the ceiling server to replay.
import { get } from 'node:http';
import type { RecordedResponse } from './processes.js';
import { headersFor } from './seed-api.js';

/** Headers Node's http server writes itself (or that describe the connection, not the answer). */
const NODE_OWN = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length']);

function fetchRaw(url: string, key: string): Promise<RecordedResponse> {
  return new Promise((resolve, reject) => {
    get(url, { headers: headersFor(key) }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const headers: Record<string, string> = {};
        const raw = response.rawHeaders;
        for (let i = 0; i + 1 < raw.length; i += 2) {
          const name = raw[i] as string;
          if (!NODE_OWN.has(name.toLowerCase())) headers[name] = raw[i + 1] as string;
        }
        const body = Buffer.concat(chunks).toString();
        if (response.statusCode !== 200)
          reject(new Error(`GET ${url} answered ${response.statusCode}: ${body}`));
        else resolve({ status: 200, headers, body });
      });
    }).on('error', reject);
  });
}

/**
 * A rule of median size among up to 50 spread over `ids`, and the first page of 100 of the list: what
 * get-rule and list-rules receive on average, for the ceilings.
 */
export async function recordAnswers(baseUrl: string, key: string, ids: string[]) {
  const step = Math.max(1, Math.floor(ids.length / 50));
  const sample = await Promise.all(
    ids.filter((_, i) => i % step === 0).map((id) => fetchRaw(`${baseUrl}/v1/rules/${id}`, key)),
  );
  sample.sort((a, b) => a.body.length - b.body.length);
  const rule = sample[sample.length >> 1];
  if (!rule) throw new Error('no rule to record for the ceiling');
  const list = await fetchRaw(`${baseUrl}/v1/rules?pageSize=100`, key);
  return { get: rule, list };
}
