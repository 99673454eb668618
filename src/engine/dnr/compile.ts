// A workspace's active rules as Chrome declarativeNetRequest rules, with a report on each rule. Rules
// are taken in list order, each pair in its order; priorities make Chrome's precedence the engine's:
// a Cancel above everything (a Cancel that acts wins over every rule), then earlier above later (the
// first Redirect, UserAgent … wins; Headers apply in order). Chrome's limits are checked rule by rule:
// what does not fit is reported, never silently dropped. Where rules can part from the engine across
// each other (a URL change and a later Cancel or URL change), both are reported partial (interactions.ts).
import type {
  BrowserPairReport,
  BrowserRuleReport,
  CompileStatus,
  DnrRule,
} from '../../model/browser-rule.js';
import type { EngineRule } from '../types.js';
import { describeProblems } from '../variables.js';
import { cancelPair } from './cancel.js';
import { headersPair } from './headers.js';
import { interactionReasons, type WrittenRule } from './interactions.js';
import { MAX_DYNAMIC_RULES, MAX_REGEX_RULES, MAX_UNSAFE_RULES } from './limits.js';
import { NOT_EXPRESSIBLE } from './not-expressible.js';
import type { PairTranslation, PairTranslator } from './pair-rule.js';
import { queryParamPair } from './query-param.js';
import { redirectPair } from './redirect.js';
import { replacePair } from './replace.js';
import { scriptPair } from './script.js';
import { regexProblem } from './url-condition.js';
import { userAgentPair } from './user-agent.js';

const TRANSLATORS: Record<string, PairTranslator> = {
  Cancel: cancelPair,
  Redirect: redirectPair,
  Replace: replacePair,
  QueryParam: queryParamPair,
  Headers: headersPair,
  UserAgent: userAgentPair,
};

export interface BrowserRules {
  rules: DnrRule[];
  report: BrowserRuleReport[];
}

type Unprioritised = Omit<DnrRule, 'priority'> & { cancel: boolean; from: WrittenRule };

function statusOf(statuses: CompileStatus[]): CompileStatus {
  if (statuses.every((s) => s === 'compiled')) return 'compiled';
  return statuses.every((s) => s === 'not_compiled') ? 'not_compiled' : 'partial';
}

function pairReport(
  pair: Record<string, unknown>,
  index: number,
  translation: PairTranslation,
  ids: number[],
) {
  const base = { index, ...(typeof pair.id === 'string' ? { pairId: pair.id } : {}) };
  if (translation.kind === 'never')
    return { ...base, status: 'compiled' as const, browserRuleIds: [], reasons: [translation.reason] };
  if (translation.kind === 'refused')
    return { ...base, status: 'not_compiled' as const, browserRuleIds: [], reasons: translation.reasons };
  return {
    ...base,
    status: translation.left.length > 0 ? ('partial' as const) : ('compiled' as const),
    browserRuleIds: ids,
    reasons: translation.left,
  };
}

export type RuleTranslation = { notExpressible: string } | { pairs: PairTranslation[] };

/** The translator of a rule's pairs: by type, and for Script by its `removeCSPHeader` (script.ts). */
function translatorOf(rule: Pick<EngineRule, 'ruleType' | 'removeCSPHeader'>): PairTranslator | undefined {
  if (rule.ruleType === 'Script') return rule.removeCSPHeader === false ? undefined : scriptPair;
  return TRANSLATORS[rule.ruleType];
}

/** A rule's pairs as Chrome's rules would write them, before limits, ids and priorities. */
export function translateRule(
  rule: Pick<EngineRule, 'ruleType' | 'pairs' | 'removeCSPHeader'>,
): RuleTranslation {
  const translator = translatorOf(rule);
  if (!translator) {
    return {
      notExpressible:
        NOT_EXPRESSIBLE[rule.ruleType] ?? `Chrome's rules cannot express the rule type ${rule.ruleType}`,
    };
  }
  return { pairs: rule.pairs.map((pair) => translator(pair)) };
}

/** What regexProblem said of each regex lately: most are asked again at the next revision. */
const regexVerdicts = new Map<string, string | undefined>();
const KEPT_VERDICTS = 20_000;

function chromeRegexProblem(regex: string, caseSensitive: boolean): string | undefined {
  const key = `${caseSensitive ? 's' : 'i'}${regex}`;
  if (regexVerdicts.has(key)) return regexVerdicts.get(key);
  const problem = regexProblem(regex, caseSensitive);
  // Long texts are refused unread (cheap): kept only when short, so the map stays small.
  if (regex.length <= 1024) {
    if (regexVerdicts.size >= KEPT_VERDICTS)
      regexVerdicts.delete(regexVerdicts.keys().next().value as string);
    regexVerdicts.set(key, problem);
  }
  return problem;
}

/** The pair refused when Chrome's RE2 would refuse one of its regexFilters. */
function checkRegexes(translation: PairTranslation): PairTranslation {
  if (translation.kind !== 'rules') return translation;
  const problems = translation.rules.flatMap(({ condition }) => {
    if (condition.regexFilter === undefined) return [];
    const problem = chromeRegexProblem(condition.regexFilter, condition.isUrlFilterCaseSensitive !== false);
    return problem ? [problem] : [];
  });
  return problems.length > 0 ? { kind: 'refused', reasons: problems } : translation;
}

/** Adds rules one at a time (so that a caller can yield between slices), then answers them all. */
export function createBrowserRuleCompiler() {
  const written: Unprioritised[] = [];
  const report: BrowserRuleReport[] = [];
  let regexRules = 0;
  let unsafeRules = 0;

  /** Why this rule's browser rules do not fit beside those before it, if they do not. */
  function overLimit(
    rules: { condition: { regexFilter?: string }; action: { type: string } }[],
  ): string | undefined {
    const regex = rules.filter((r) => r.condition.regexFilter !== undefined).length;
    const unsafe = rules.filter((r) => r.action.type !== 'block').length;
    if (written.length + rules.length > MAX_DYNAMIC_RULES)
      return `over Chrome's limit of ${MAX_DYNAMIC_RULES} dynamic rules: the rules before it fill it`;
    if (regexRules + regex > MAX_REGEX_RULES)
      return `over Chrome's limit of ${MAX_REGEX_RULES} rules with a regular expression: the rules before it fill it`;
    if (unsafeRules + unsafe > MAX_UNSAFE_RULES)
      return `over Chrome's limit of ${MAX_UNSAFE_RULES} redirect and header rules: the rules before it fill it`;
    return undefined;
  }

  /**
   * Adds one active rule, in list order. `translation`: what translateRule answered for it, when the
   * caller kept it from an earlier build (a rule's translation depends on its type and pairs only).
   * Answers the translation used, to keep (undefined when the rule was not translated: no room left).
   */
  function add(
    rule: Pick<EngineRule, 'id' | 'ruleType' | 'pairs' | 'removeCSPHeader' | 'environmentProblems'>,
    kept?: RuleTranslation,
  ): RuleTranslation | undefined {
    if (rule.environmentProblems?.length) {
      // Resolved in this environment it fails a written rule's checks: the engine never lets it act.
      report.push({
        ruleId: rule.id,
        status: 'not_compiled',
        reasons: [describeProblems(rule.environmentProblems)],
      });
      return undefined;
    }
    if (written.length >= MAX_DYNAMIC_RULES && translatorOf(rule)) {
      // Full: the rest is reported without being checked (a workspace may hold 100,000 rules).
      report.push({
        ruleId: rule.id,
        status: 'not_compiled',
        reasons: [overLimit([{ condition: {}, action: { type: 'block' } }]) as string],
      });
      return undefined;
    }
    const translation = kept ?? translateRule(rule);
    if ('notExpressible' in translation) {
      report.push({ ruleId: rule.id, status: 'not_compiled', reasons: [translation.notExpressible] });
      return translation;
    }
    let translations = translation.pairs;
    let rules = translations.flatMap((t) => (t.kind === 'rules' ? t.rules : []));
    let limit = overLimit(rules);
    if (!limit && rules.some((r) => r.condition.regexFilter !== undefined)) {
      // Compiling a regex is the costly part: done only for rules that fit the count limits.
      translations = translations.map(checkRegexes);
      rules = translations.flatMap((t) => (t.kind === 'rules' ? t.rules : []));
      limit = overLimit(rules);
    }
    if (limit) {
      report.push({ ruleId: rule.id, status: 'not_compiled', reasons: [limit] });
      return translation;
    }
    const pairs: BrowserPairReport[] = translations.map((translation, index) => {
      const ids: number[] = [];
      if (translation.kind === 'rules') {
        const key = (rule.pairs[index]?.source as { key?: string } | undefined)?.key ?? 'Url';
        for (const { action, condition } of translation.rules) {
          const id = written.length + 1;
          const from = { ruleId: rule.id, ruleType: rule.ruleType, key, actionType: action.type, condition };
          written.push({ id, action, condition, cancel: rule.ruleType === 'Cancel', from });
          ids.push(id);
        }
      }
      return pairReport(rule.pairs[index] as Record<string, unknown>, index, translation, ids);
    });
    regexRules += rules.filter((r) => r.condition.regexFilter !== undefined).length;
    unsafeRules += rules.filter((r) => r.action.type !== 'block').length;
    const status = statusOf(pairs.map((p) => p.status));
    const reasons =
      status === 'compiled'
        ? []
        : [...new Set(pairs.flatMap((p) => (p.status === 'compiled' ? [] : p.reasons)))];
    report.push({ ruleId: rule.id, status, pairs, reasons });
    return translation;
  }

  function finish(): BrowserRules {
    const across = interactionReasons(written.map((r) => r.from));
    if (across.size > 0) {
      for (const entry of report) {
        const reasons = across.get(entry.ruleId);
        if (!reasons) continue;
        // Its pairs are as they were: each alone is expressed; the rule beside others is what parts.
        if (entry.status === 'compiled') entry.status = 'partial';
        entry.reasons.push(...reasons);
      }
    }
    const ordered = written.filter((r) => !r.cancel).length;
    let place = 0;
    const rules = written.map(({ cancel, from: _from, ...rule }) => ({
      id: rule.id,
      priority: cancel ? ordered + 1 : ordered - place++,
      action: rule.action,
      condition: rule.condition,
    }));
    return { rules, report };
  }

  return { add, finish };
}

/** The active rules of `rules` (in list order) compiled at once: for tests and small sets. */
export function compileBrowserRules(rules: readonly EngineRule[]): BrowserRules {
  const compiler = createBrowserRuleCompiler();
  for (const rule of rules) if (isActive(rule)) compiler.add(rule);
  return compiler.finish();
}

export const isActive = (rule: EngineRule) => rule.status === 'Active' && rule.groupStatus !== 'Inactive';
