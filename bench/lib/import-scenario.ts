// The import scenario (`npm run bench -- --import`): `rulekeeper import` of a generated Requestly file
// of 10,000 and 100,000 records into a fresh workspace, on SQLite (full durability) and PostgreSQL:
// records per second and the command's peak memory.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mixedRule } from './engine-scenario.js';
import { type Target, targetList } from './report.js';
import { issueKey } from './seed-api.js';

export interface ImportFacts {
  store: string;
  records: number;
  seconds: number;
  records_per_s: number;
  peak_rss_mb: number;
}

/** A Requestly-shaped file: 1 group per 1,000 records, then rules of every type, half of them grouped. */
function writeFile(path: string, records: number): void {
  const groups = Math.max(1, Math.floor(records / 1000));
  const items: unknown[] = Array.from({ length: groups }, (_, i) => ({
    objectType: 'group',
    id: `Group_g${i}`,
    name: `group ${i}`,
    status: 'Active',
  }));
  for (let n = 0; items.length < records; n++) {
    const rule = mixedRule(n);
    items.push({
      ...rule,
      objectType: 'rule',
      id: `${rule.ruleType}_r${n}`,
      groupId: n % 2 ? `Group_g${n % groups}` : '',
    });
  }
  writeFileSync(path, JSON.stringify(items));
}

function peakRssMb(pid: number): number {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0; // the process has ended
  }
}

/** `rulekeeper import FILE` timed from start to exit, its peak RSS read while it runs. */
async function timedImport(
  bin: string,
  databaseUrl: string,
  file: string,
  workspace: string,
): Promise<{ seconds: number; rssMb: number }> {
  const began = performance.now();
  const child = spawn(process.execPath, [bin, 'import', file, '--workspace', workspace, '--json'], {
    env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    if (output.length < 200) output += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  let rssMb = 0;
  const sampler = setInterval(() => {
    rssMb = Math.max(rssMb, peakRssMb(child.pid as number));
  }, 50);
  const [code] = await once(child, 'exit');
  clearInterval(sampler);
  if (code !== 0) throw new Error(`import of ${file} failed (${code}): ${output}`);
  return { seconds: (performance.now() - began) / 1000, rssMb };
}

export async function measureImports(
  bin: string,
  dir: string,
  stores: { store: string; databaseUrl: string }[],
  sizes: number[],
  log: (line: string) => void,
): Promise<ImportFacts[]> {
  const facts: ImportFacts[] = [];
  for (const records of sizes) {
    const file = join(dir, `import-${records}.json`);
    writeFile(file, records);
    for (const { store, databaseUrl } of stores) {
      const workspace = `bench-import-${records}`;
      await issueKey(databaseUrl, workspace, `${workspace}-admin`);
      const { seconds, rssMb } = await timedImport(bin, databaseUrl, file, workspace);
      const fact = {
        store,
        records,
        seconds: Math.round(seconds * 100) / 100,
        records_per_s: Math.round(records / seconds),
        peak_rss_mb: Math.round(rssMb),
      };
      log(
        `import (${store}): ${records} records in ${fact.seconds} s, ${fact.records_per_s} records/s, peak RSS ${fact.peak_rss_mb} MB`,
      );
      facts.push(fact);
    }
  }
  return facts;
}

export function importTargets(facts: ImportFacts[]): Target[] {
  const [list, add] = targetList();
  for (const fact of facts.filter((f) => f.store === 'sqlite')) {
    add(
      `import records/s, ${fact.records} records (sqlite, full durability)`,
      fact.records_per_s,
      5000,
      '>=',
    );
  }
  return list;
}
