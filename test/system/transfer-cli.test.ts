// `rulekeeper import` and `rulekeeper export` as an operator runs them, on both databases: the report,
// dry runs, a failed record writing nothing, files that are not Requestly files, and a round trip.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createKeyWithCli,
  runCli,
  type ScratchDatabase,
  type ScratchKind,
  scratchDatabase,
} from '../helpers/cli.js';
import { olderRecords, requestlyGroup, requestlyRules } from '../helpers/requestly-records.js';

const kinds: ScratchKind[] = process.env.TEST_POSTGRES_URL ? ['sqlite', 'postgres'] : ['sqlite'];

describe.each(kinds)('rulekeeper import and export (%s)', (kind) => {
  let database: ScratchDatabase;
  let dir: string;
  const env = () => ({ DATABASE_URL: database.url });
  const file = (name: string, content: unknown) => {
    const path = join(dir, name);
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
    return path;
  };
  const exportOf = async (workspace: string) => {
    const result = await runCli(['export', '--workspace', workspace], env());
    expect(result.code, result.stderr).toBe(0);
    return JSON.parse(result.stdout) as Record<string, unknown>[];
  };

  beforeAll(async () => {
    database = await scratchDatabase(kind);
    dir = mkdtempSync(join(tmpdir(), 'rulekeeper-transfer-cli-'));
    await createKeyWithCli(database.url, 'team', 'alice');
    await createKeyWithCli(database.url, 'empty', 'bob');
  });
  afterAll(async () => {
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  const records = [
    requestlyGroup,
    ...Object.values(requestlyRules).slice(0, 3),
    ...Object.values(olderRecords),
  ];

  it('checks a file without writing it on --dry-run', async () => {
    const result = await runCli(
      ['import', file('dry.json', records), '--workspace', 'team', '--dry-run'],
      env(),
    );
    expect(result.stdout).toMatch(/^6 created, 0 updated, 0 failed \(dry run: nothing was written\)$/m);
    expect(result.code).toBe(0);
    expect(await exportOf('team')).toEqual([]);
  });

  it('imports a Requestly export, printing conversions and a summary; no progress bar on a pipe', async () => {
    const result = await runCli(['import', file('export.json', records), '--workspace', 'team'], env());
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/record 4 "[^"]*" \([^)]*\): converted from the older Headers format/);
    expect(result.stdout).toMatch(/record 5 "[^"]*" \([^)]*\): converted from the older Redirect format/);
    expect(result.stdout).toMatch(/^6 created, 0 updated, 0 failed$/m);
    expect(result.code).toBe(0);
    const exported = await exportOf('team');
    expect(exported.map((o) => o.objectType)).toEqual(['group', 'rule', 'rule', 'rule', 'rule', 'rule']);
  });

  it('writes nothing when a record fails (abort), and says where in the file; --json gives the same details', async () => {
    const bad = [
      {
        objectType: 'rule',
        name: 'x',
        ruleType: 'Cancel',
        pairs: [{ source: { key: 'Host', operator: 'Is', value: 'a' } }],
      },
    ];
    const result = await runCli(['import', file('bad.json', bad), '--workspace', 'empty'], env());
    expect(result.stdout).toMatch(/^Import is invalid: nothing was written$/m);
    expect(result.stdout).toMatch(/\/0\/pairs\/0\/source\/operator: must be one of/);
    expect(result.code).toBe(1);
    const json = await runCli(['import', file('bad.json', bad), '--workspace', 'empty', '--json'], env());
    expect(JSON.parse(json.stdout)).toMatchObject({
      code: 'IMPORT_INVALID',
      details: [{ path: '/0/pairs/0/source/operator' }],
    });
    expect(await exportOf('empty')).toEqual([]);
  });

  it.each([
    ['not JSON', '[{"name"', /Import is invalid: nothing was written/],
    ['not an array', '{"objectType": "rule"}', /must be a JSON array/],
    // After a valid record: the reader streams the file, and must still refuse it whole.
    [
      'a record with a prototype key after a valid one',
      '[{"objectType":"group","name":"g"},{"ruleType":"Cancel","__proto__":{"x":1}}]',
      /\/1: record 1 is not valid JSON/,
    ],
    [
      'valid records, then no closing bracket',
      '[{"objectType":"group","name":"g"},{"ruleType":',
      /\/1: the file ends before/,
    ],
  ])('refuses a file that is %s', async (_title, text, message) => {
    const result = await runCli(['import', file('broken.json', text), '--workspace', 'empty'], env());
    expect(result.stdout).toMatch(message);
    expect(result.code).toBe(1);
    expect(await exportOf('empty')).toEqual([]);
  });

  it("exports in Requestly's shapes with --format requestly, and refuses an unknown format", async () => {
    const result = await runCli(['export', '--workspace', 'team', '--format', 'requestly'], env());
    expect(result.code, result.stderr).toBe(0);
    const file = JSON.parse(result.stdout) as Record<string, unknown>[];
    const headers = file.find((o) => o.ruleType === 'Headers') as { pairs: { modifications: unknown }[] };
    expect(Array.isArray(headers.pairs[0]?.modifications)).toBe(false);
    expect(file.every((o) => o.objectType !== 'rule' || o.schemaVersion === '3.0.0')).toBe(true);
    const bad = await runCli(['export', '--workspace', 'team', '--format', 'har'], env());
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--format must be rulekeeper or requestly/);
  });

  it('refuses an unknown workspace, a missing file and a bad mode with exit code 2', async () => {
    const path = file('ok.json', []);
    const cases: [string[], RegExp][] = [
      [['import', path, '--workspace', 'nowhere'], /no workspace named "nowhere"/],
      [['import', join(dir, 'missing.json'), '--workspace', 'team'], /cannot read/],
      [['import', path, '--workspace', 'team', '--mode', 'merge'], /--mode must be copy or overwrite/],
    ];
    for (const [args, message] of cases) {
      const result = await runCli(args, env());
      expect(result.stderr).toMatch(message);
      expect(result.code).toBe(2);
    }
  });

  it('exports to a file that imports into another workspace with the same content', async () => {
    const out = join(dir, 'team-export.json');
    const result = await runCli(['export', '--workspace', 'team', '--output', out], env());
    expect(result.code, result.stderr).toBe(0);
    const exported = JSON.parse(readFileSync(out, 'utf8')) as Record<string, unknown>[];
    await createKeyWithCli(database.url, 'copy', 'carol');
    const copied = await runCli(['import', out, '--workspace', 'copy', '--json'], env());
    expect(JSON.parse(copied.stdout)).toMatchObject({ created: exported.length, failed: 0 });
    const content = ({
      id: _i,
      groupId: _g,
      createdBy: _c,
      lastModifiedBy: _l,
      modificationDate: _m,
      currentOwner: _o,
      currentOwnerId: _p,
      ...rest
    }: Record<string, unknown>) => rest;
    expect((await exportOf('copy')).map(content)).toEqual(exported.map(content));
  });
});
