// Every field Requestly's own record types declare, and what Rulekeeper does with each (decision 22).
//
// Read from requestly/requestly at commit 3b60a3fe46f77b32b11cbcedae14617fe7d2466c:
// shared/src/types/entities/base.ts (StorageEntity), shared/src/types/entities/rules/base.ts (BaseItem),
// rules/group.ts (Group) and rules/rule.ts (BaseRule, BaseRulePair, RulePairSource, RuleSourceFilter and
// each type's Pair, Modification and ScriptRuleModifications); plus the Delay pair's `delayType`, which no
// type declares but its rule processor reads (common/rule-processor/src/processors/DelayRequestRuleProcessor.js)
// and its records carry.
//
// Each field is one of:
// - kept: stored and acting here (listed so that the list is whole; the schemas declare them);
// - replaced: bookkeeping Rulekeeper writes for itself (ids, dates, authors, format versions): ignored,
//   without a warning, since nothing of the rule is lost;
// - dropped: a meaning in Requestly that Rulekeeper does not have (yet): ignored, and an import says so in
//   the record's warnings, naming the field, when its value is not Requestly's default (`isSample: false`
//   loses nothing and is in every record).

/** Fields of every record, rule or group (StorageEntity and BaseItem). */
const RECORD = {
  id: 'replaced',
  createdAt: 'replaced',
  updatedAt: 'replaced',
  updatedBy: 'replaced',
  createdBy: 'replaced',
  name: 'kept',
  description: 'kept',
  objectType: 'kept',
  status: 'kept',
  isFavourite: 'kept',
  isSample: 'dropped',
  isReadOnly: 'dropped',
  creationDate: 'replaced',
  currentOwner: 'replaced',
  lastModifiedBy: 'replaced',
  modificationDate: 'replaced',
  // Not in the types, but in every record of its exports (the app's save adds it).
  lastModified: 'replaced',
} as const;

/** Fields of a rule record beyond RECORD (BaseRule, and ScriptRule.Record's own). */
const RULE = {
  ...RECORD,
  // Pinned rules, as groups (migration 0012; GET /v1/rules?isFavourite=true lists them).
  isFavourite: 'kept',
  ruleType: 'kept',
  groupId: 'kept',
  pairs: 'kept',
  schemaVersion: 'replaced',
  isModHeaderImport: 'dropped',
  isCharlesImport: 'dropped',
  // ScriptRule.Record's own (SCRIPT_ONLY): the Content-Security-Policy of the documents it acts on is
  // removed unless it is false, as Requestly's extension does (app/src/modules/extension/mv3RuleParser/
  // parseScriptRule.ts); dropped from the other types, which have no use for it.
  removeCSPHeader: 'kept',
  // In records of its app, not its types: the MV3 rules it compiled, the Headers format version, and the
  // Response rule's cookie option.
  extensionRules: 'replaced',
  version: 'replaced',
  preserveCookie: 'dropped',
} as const;

/** Fields of a group record beyond RECORD: its records also carry its rules' ids (`children`). */
const GROUP = {
  ...RECORD,
  // A group has no description here: kept only by Requestly's own format (written "" on export).
  description: 'dropped',
  children: 'replaced',
} as const;

/** Fields of a pair's own (not its source or modifications), per rule type, beyond `id` and `source`. */
const PAIR: Record<string, Record<string, Disposition>> = {
  Delay: { delay: 'kept', delayType: 'dropped' },
};

export type Disposition = 'kept' | 'replaced' | 'dropped';

/** Rule fields kept on Script rules only: on another type, dropped (and an import says so). */
const SCRIPT_ONLY = new Set(['removeCSPHeader']);

/** The rule-level fields Requestly's records carry that a body may send and Rulekeeper ignores. */
export const REQUESTLY_RULE_IGNORED = names(RULE, ['replaced', 'dropped']);
/** The group-level ones. */
export const REQUESTLY_GROUP_IGNORED = names(GROUP, ['replaced', 'dropped']);
/** The pair fields a type's normaliser removes (with the field name, so an import can warn of them). */
export const REQUESTLY_PAIR_DROPPED = (ruleType: string): string[] =>
  Object.entries(PAIR[ruleType] ?? {}).flatMap(([name, how]) => (how === 'dropped' ? [name] : []));

function names(fields: Record<string, Disposition>, kinds: Disposition[]): string[] {
  return Object.entries(fields).flatMap(([name, how]) => (kinds.includes(how) ? [name] : []));
}

/** Requestly's default of a dropped field whose default is not an empty value. */
const DEFAULTS: Record<string, unknown> = {
  // Where Requestly delays (in the page, or through its delay server): here the request waits either way.
  delayType: 'clientSideDelay',
};

/** A value that says nothing Requestly's default would not: dropping it loses nothing. */
const isDefault = (value: unknown, name: string) =>
  value === DEFAULTS[name] ||
  value === undefined ||
  value === null ||
  value === false ||
  value === '' ||
  (Array.isArray(value) && value.length === 0);

/**
 * The warning an import gives a record for the Requestly fields it drops that said something (null when
 * none did): one sentence naming each field, with where it was for a pair's.
 */
export function droppedFieldsWarning(record: Record<string, unknown>, kind: 'rule' | 'group'): string | null {
  const fields = kind === 'rule' ? RULE : GROUP;
  const script = record.ruleType === 'Script';
  const dropped = Object.entries(fields).flatMap(([name, how]) => {
    const dropping = how === 'dropped' || (kind === 'rule' && !script && SCRIPT_ONLY.has(name));
    return dropping && !isDefault(record[name], name) ? [name] : [];
  });
  const pairFields = kind === 'rule' ? REQUESTLY_PAIR_DROPPED(String(record.ruleType)) : [];
  if (pairFields.length > 0 && Array.isArray(record.pairs)) {
    record.pairs.forEach((pair, index) => {
      if (typeof pair !== 'object' || pair === null) return;
      for (const name of pairFields) {
        if (!isDefault((pair as Record<string, unknown>)[name], name)) dropped.push(`pairs/${index}/${name}`);
      }
    });
  }
  if (dropped.length === 0) return null;
  return `Requestly fields with no meaning in Rulekeeper were dropped: ${dropped.join(', ')}`;
}
