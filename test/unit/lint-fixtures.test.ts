// The lint over the Requestly records the repository keeps (shapes of real exports): read as an import
// reads them, they give only the findings the README justifies.
import { describe, expect, it } from 'vitest';
import { type LintGroup, type LintRule, lintWorkspace } from '../../src/engine/lint/index.js';
import { readRecord } from '../../src/modules/transfer/import-records.js';
import { olderRecords, requestlyGroup, requestlyRules } from '../helpers/requestly-records.js';

function workspace() {
  const records = [requestlyGroup, ...Object.values(requestlyRules), ...Object.values(olderRecords)];
  const rules: (LintRule & { creationDate: number })[] = [];
  const groups: LintGroup[] = [];
  records.forEach((record, index) => {
    const read = readRecord(record, index, 60_000);
    if (read.kind === 'failed') throw new Error(`record ${index} failed: ${read.message}`);
    const id = read.sourceId as string;
    if (read.kind === 'group')
      groups.push({ id, name: read.write.name as string, status: read.write.status ?? 'Active' });
    else {
      rules.push({
        id,
        name: read.write.name as string,
        ruleType: read.write.ruleType as string,
        status: read.write.status ?? 'Inactive',
        groupId: read.write.groupId ?? '',
        pairs: read.pairs,
        creationDate: read.creationDate ?? 0,
      });
    }
  });
  rules.sort((a, b) => a.creationDate - b.creationDate || (a.id < b.id ? -1 : 1));
  return { rules, groups };
}

describe('the lint over the Requestly records of the fixtures', () => {
  it('reads every record', () => {
    const { rules, groups } = workspace();
    expect(rules).toHaveLength(Object.keys(requestlyRules).length + Object.keys(olderRecords).length);
    expect(groups).toHaveLength(1);
  });

  it('finds only what the README justifies', () => {
    const { rules, groups } = workspace();
    const findings = lintWorkspace(rules, groups);
    // One, and a true one: "API to staging" sends URLs containing example.com/api to
    // https://staging.example.com/api, which contains example.com/api too (README, Rule lint).
    expect(findings.map((f) => [f.code, f.severity, f.ruleIds])).toEqual([
      ['redirect_loop', 'warning', ['Redirect_kt3hx']],
    ]);
    expect(findings[0]?.message).toContain('https://staging.example.com/api');
  });
});
