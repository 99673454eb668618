// What Requestly needs of a record to take it back, derived from requestly/requestly at commit
// 3b60a3fe46f77b32b11cbcedae14617fe7d2466c (encoded here, never copied):
// - the fields its types require (declared without `?`): shared/src/types/entities/base.ts
//   (StorageEntity), rules/base.ts (BaseItem), rules/group.ts, rules/rule.ts (BaseRule, BaseRulePair,
//   RulePairSource, each type's Pair and Modification, ScriptRuleModifications), with their JSON types;
// - what its importer reads: app/src/features/rules/modals/ImportRulesModal/actions/index.js (objectType
//   `rule` or `group`, else the record is left out), app/src/utils/rules/ruleMigrations.js (a Headers
//   rule without `version` above 1 is rebuilt from the pre-2018 flat pairs; pairs[0].source is read),
//   app/src/modules/extension/utils.ts (a `schemaVersion` below LATEST_RULES_SCHEMA_VERSION is migrated).
type Json = Record<string, unknown>;

const ITEM = ['id', 'name', 'objectType', 'status'];
const RULE = [...ITEM, 'ruleType', 'pairs'];
const PAIR = ['id', 'source'];
const SOURCE = ['key', 'operator', 'value'];
const PAIR_OF_TYPE: Record<string, string[]> = {
  Redirect: ['destination'],
  Replace: ['from', 'to'],
  QueryParam: ['modifications'],
  Cancel: [],
  Delay: ['delay'],
  Headers: ['modifications'],
  UserAgent: ['userAgent'],
  Request: ['request'],
  Response: ['response'],
  Script: ['scripts'],
};
const QUERY_PARAM_MODIFICATION = ['param', 'value', 'type'];
const HEADER_MODIFICATION = ['header', 'type', 'value'];
const BODY = ['type', 'value'];
const SCRIPT = ['codeType', 'value', 'loadTime', 'type', 'id'];
/** Requestly's LATEST_RULES_SCHEMA_VERSION. */
const LATEST: Record<string, string> = { Replace: '3.0.2' };

/** String fields whose type is `string` in Requestly's types, where ours are numbers. */
const STRINGS = ['delay', 'statusCode', 'value', 'id', 'name'];

function missing(object: unknown, fields: string[], at: string): string[] {
  if (typeof object !== 'object' || object === null || Array.isArray(object)) return [`${at}: not an object`];
  return fields.flatMap((field) => {
    const value = (object as Json)[field];
    if (value === undefined) return [`${at}/${field}: required`];
    if (STRINGS.includes(field) && typeof value !== 'string') return [`${at}/${field}: must be a string`];
    return [];
  });
}

/** What keeps Requestly from taking `record` as it is, one line each; [] when nothing. */
export function requestlyProblems(record: Json, at = ''): string[] {
  if (record.objectType === 'group') return missing(record, ITEM, at);
  if (record.objectType !== 'rule') return [`${at}/objectType: must be "rule" or "group"`];
  const problems = missing(record, RULE, at);
  const ruleType = String(record.ruleType);
  if (ruleType === 'Headers' && !(Number(record.version) > 1))
    problems.push(`${at}/version: a Headers rule needs version 2, else it is read as the flat format`);
  if (record.schemaVersion !== (LATEST[ruleType] ?? '3.0.0'))
    problems.push(`${at}/schemaVersion: below ${LATEST[ruleType] ?? '3.0.0'}, the rule is migrated`);
  const pairs = Array.isArray(record.pairs) ? (record.pairs as Json[]) : [];
  if (pairs.length === 0) problems.push(`${at}/pairs: its importer reads pairs[0]`);
  pairs.forEach((pair, index) => {
    const p = `${at}/pairs/${index}`;
    problems.push(...missing(pair, [...PAIR, ...(PAIR_OF_TYPE[ruleType] ?? [])], p));
    problems.push(...missing(pair.source, SOURCE, `${p}/source`));
    if (ruleType === 'QueryParam')
      for (const [i, m] of (pair.modifications as Json[]).entries())
        problems.push(...missing(m, QUERY_PARAM_MODIFICATION, `${p}/modifications/${i}`));
    if (ruleType === 'Headers') {
      const sets = pair.modifications as Json;
      if (Array.isArray(sets)) problems.push(`${p}/modifications: must be one object {Request?, Response?}`);
      for (const target of ['Request', 'Response'])
        for (const [i, m] of ((sets[target] as Json[] | undefined) ?? []).entries())
          problems.push(...missing(m, HEADER_MODIFICATION, `${p}/modifications/${target}/${i}`));
    }
    if (ruleType === 'Request') problems.push(...missing(pair.request, BODY, `${p}/request`));
    if (ruleType === 'Response') {
      problems.push(...missing(pair.response, BODY, `${p}/response`));
      const code = (pair.response as Json | undefined)?.statusCode;
      if (code !== undefined && typeof code !== 'string')
        problems.push(`${p}/response/statusCode: must be a string`);
    }
    if (ruleType === 'Script')
      for (const [i, script] of (pair.scripts as Json[]).entries())
        problems.push(...missing(script, SCRIPT, `${p}/scripts/${i}`));
  });
  return problems;
}
