// The rule lint's findings beside the fields they concern: each finding points into the rule with a
// JSON Pointer (`/pairs/0/source/value`), as the API's errors do, so the form shows it where it shows
// an error for that pointer. The editor's list of findings above the form stays, for the whole view.
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Schemas } from '../api.js';
import { fieldId } from './field-errors.js';

type Finding = Schemas['LintFinding'];

export type FieldFindingsMap = ReadonlyMap<string, Finding[]>;

/** The findings about rule `ruleId`, by the pointer into it each names. */
export function findingsByPointer(findings: readonly Finding[], ruleId: string): FieldFindingsMap {
  const map = new Map<string, Finding[]>();
  for (const finding of findings) {
    for (const pointer of finding.pointers) {
      if (pointer.ruleId !== ruleId) continue;
      const list = map.get(pointer.path) ?? [];
      if (!list.includes(finding)) map.set(pointer.path, [...list, finding]);
    }
  }
  return map;
}

export const FieldFindingsContext = createContext<FieldFindingsMap>(new Map());

export function useFieldFindings(pointer: string): Finding[] {
  return useContext(FieldFindingsContext).get(pointer) ?? [];
}

export function FieldFindings({ pointer }: { pointer: string }) {
  const findings = useFieldFindings(pointer);
  if (findings.length === 0) return null;
  return (
    <div class="field-findings" id={`${fieldId(pointer)}-findings`}>
      {findings.map((finding) => (
        <p key={finding.code + finding.message} class={`finding lint-${finding.severity}`}>
          <span class={`badge lint-${finding.severity}`}>{finding.severity}</span> {finding.message}{' '}
          <span class="hint">{finding.hint}</span>
        </p>
      ))}
    </div>
  );
}
