// The rule lint's findings in an import's report: each rule written gets, among its warnings, what the
// lint finds about it in the workspace after the import (a dry run writes nothing, so finds nothing).
import type { Finding } from '../../model/finding.js';
import type { ImportResult } from './transfer-schemas.js';

/** A finding as a line of an item's `warnings` (which are sentences, as the conversions' are). */
export function findingWarning(finding: Finding): string {
  return `${finding.code} (${finding.severity}): ${finding.message} Hint: ${finding.hint}`;
}

/** The report with the findings about each rule it wrote added to that rule's warnings. */
export function withFindings(report: ImportResult, findings: readonly Finding[]): ImportResult {
  const byRule = new Map<string, string[]>();
  for (const finding of findings) {
    for (const ruleId of finding.ruleIds)
      byRule.set(ruleId, [...(byRule.get(ruleId) ?? []), findingWarning(finding)]);
  }
  return {
    ...report,
    items: report.items.map((item) =>
      item.objectType === 'rule' && item.outcome !== 'failed' && item.id !== null && byRule.has(item.id)
        ? { ...item, warnings: [...item.warnings, ...(byRule.get(item.id) ?? [])] }
        : item,
    ),
  };
}
