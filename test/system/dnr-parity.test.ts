/// <reference types="chrome" />
// Browser parity: every case of the engine's tables (matching, filters, effects, precedence, fidelity,
// variables: rules resolved in an environment)
// asked of Chromium itself. A minimal unpacked extension (declarativeNetRequest +
// declarativeNetRequestFeedback) installs the compiled rules as dynamic rules and asks
// `testMatchOutcome` for the table's request, then for each URL it is redirected to, as a browser would
// send the redirected request; the engine is asked the same. Where each ends (cancelled, or the URL)
// must agree for every case whose rules the compiler reports `compiled`; where a case has a rule it
// reports `partial` or `not_compiled`, they may differ, but only on a rule so reported: a rule that
// matched the request, in the engine or in Chromium. The figures are printed, and written in the README.
//
// testMatchOutcome names the rules that match, not the URL they lead to: the URL is read from the
// matched rule's action (its url, its regexSubstitution applied with RE2 as Chrome's RE2 applies it,
// its query transform). Header changes are not compared (Chrome reports which rules match, not the
// headers they leave).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { type BrowserContext, chromium, type Worker } from 'playwright-core';
import { RE2JS } from 're2js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileBrowserRules } from '../../src/engine/dnr/index.js';
import {
  compileRuleSet,
  type EngineRule,
  type RequestInput,
  toEngineRequest,
} from '../../src/engine/index.js';
import type { DnrRule } from '../../src/model/browser-rule.js';
import { CHROMIUM } from '../helpers/chromium.js';

const ROOT = resolve(import.meta.dirname, '../..');
const EXTENSION = resolve(ROOT, 'test/helpers/dnr-parity-extension');
const TABLES = ['matching', 'filters', 'effects', 'precedence', 'fidelity', 'variables'].map(
  (name) => `test/unit/${name}-table.test.ts`,
);
/** Redirects Chromium's side follows before a case stops (a loop ends here). */
const MAX_HOPS = 5;

interface TableCase {
  table: string;
  title: string;
  rules: EngineRule[];
  request: RequestInput;
}

type Hop = { cancelled: true } | { url: string };

/** Runs the engine's tables with TABLE_CASES_FILE set (see engine-helpers.ts) and reads what they asked. */
function tableCases(): TableCase[] {
  const dir = mkdtempSync(join(tmpdir(), 'rulekeeper-parity-'));
  const file = join(dir, 'cases.jsonl');
  try {
    execFileSync(
      process.execPath,
      ['node_modules/vitest/vitest.mjs', 'run', '--project', 'unit', ...TABLES],
      {
        cwd: ROOT,
        env: { ...process.env, TABLE_CASES_FILE: file },
        stdio: 'ignore',
      },
    );
    return readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as TableCase);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const withoutFragment = (url: string) => url.replace(/#.*$/, '');

/** Where a request ends: cancelled, at a URL (after its redirects), or in a redirect loop. */
type End = 'cancelled' | 'loop' | string;

/**
 * The engine's verdict on the request, then on each URL it redirects to (the browser sends the
 * redirected request, and the engine evaluates it again), until the URL stays; and the rules that
 * matched on the way (whether they acted or not).
 */
function engineEnd(rules: EngineRule[], request: RequestInput): { end: End; matched: Set<string> } {
  const set = compileRuleSet(rules);
  const matched = new Set<string>();
  let input = request;
  for (let hop = 0; hop < MAX_HOPS; hop++) {
    const engineRequest = toEngineRequest(input);
    if ('details' in engineRequest) {
      // Redirected where no rule acts (a local file: not compiled, the proxy serves it): it ends there.
      if (hop > 0) return { end: withoutFragment(input.url), matched };
      throw new Error(`invalid request in the table: ${input.url}`);
    }
    const { outcome, rules: verdicts } = set.trace(engineRequest);
    for (const verdict of verdicts) if (verdict.reason !== 'no_pair_matched') matched.add(verdict.ruleId);
    if (outcome.cancelled) return { end: 'cancelled', matched };
    const url = withoutFragment(outcome.url);
    if (!outcome.redirected || url === withoutFragment(input.url)) return { end: url, matched };
    input = { ...input, url: outcome.url };
  }
  return { end: 'loop', matched };
}

/** The URL a matched redirect rule leads to, read from its action as Chrome applies it. */
function redirectedUrl(rule: DnrRule, url: string): string {
  const redirect = rule.action.redirect ?? {};
  if (redirect.url !== undefined) return new URL(redirect.url).href;
  if (redirect.regexSubstitution !== undefined) {
    const flags = rule.condition.isUrlFilterCaseSensitive === false ? RE2JS.CASE_INSENSITIVE : 0;
    const matcher = RE2JS.compile(rule.condition.regexFilter as string, flags).matcher(url);
    if (!matcher.find()) return url;
    const written = redirect.regexSubstitution.replace(/\\(\\|[0-9])/g, (_all, what: string) =>
      what === '\\' ? '\\' : (matcher.group(Number(what)) ?? ''),
    );
    return new URL(url.slice(0, matcher.start()) + written + url.slice(matcher.end())).href;
  }
  const parsed = new URL(url);
  const transform = redirect.transform ?? {};
  if (transform.query !== undefined) {
    parsed.search = transform.query;
    return parsed.href;
  }
  const { removeParams = [], addOrReplaceParams = [] } = transform.queryTransform ?? {};
  let params = parsed.search
    .slice(1)
    .split('&')
    .filter((part) => part !== '')
    .map((raw) => ({ raw, key: raw.split('=')[0] as string }));
  params = params.filter((p) => !removeParams.includes(p.key));
  for (const { key, value } of addOrReplaceParams) {
    const at = params.findIndex((p) => p.key === key);
    if (at >= 0) params[at] = { raw: `${key}=${value}`, key };
    else params.push({ raw: `${key}=${value}`, key });
  }
  parsed.search = params.length === 0 ? '' : `?${params.map((p) => p.raw).join('&')}`;
  return parsed.href;
}

/**
 * What Chromium's rules do to the request (as a browser sends it: no fragment), then to each redirect;
 * `matched` gets the ids of the browser rules that matched on the way.
 */
async function chromeHops(
  worker: Worker,
  rules: DnrRule[],
  request: RequestInput,
  matched: Set<number>,
): Promise<Hop[]> {
  const byId = new Map(rules.map((rule) => [rule.id, rule]));
  const hops: Hop[] = [];
  let url = withoutFragment(new URL(request.url).href);
  for (let i = 0; i < MAX_HOPS; i++) {
    const details = {
      url,
      type: request.resourceType ?? 'other',
      method: (request.method ?? 'GET').toLowerCase(),
      ...(request.pageUrl ? { initiator: new URL(request.pageUrl).origin } : {}),
    };
    const ids = await worker.evaluate(
      async (asked) =>
        (await chrome.declarativeNetRequest.testMatchOutcome(asked as never)).matchedRules.map(
          (m) => m.ruleId,
        ),
      details,
    );
    for (const id of ids) matched.add(id);
    const acting = ids.map((id) => byId.get(id) as DnrRule);
    if (acting.some((rule) => rule.action.type === 'block')) return [...hops, { cancelled: true }];
    const redirect = acting
      .filter((rule) => rule.action.type === 'redirect')
      .sort((a, b) => b.priority - a.priority)[0];
    if (!redirect) break;
    const next = withoutFragment(redirectedUrl(redirect, url));
    if (next === url) break;
    hops.push({ url: next });
    url = next;
  }
  return hops;
}

describe.skipIf(!CHROMIUM)('browser parity: the compiled rules in Chromium agree with the engine', () => {
  let context: BrowserContext;
  let worker: Worker;
  let profile: string;
  let cases: TableCase[];

  beforeAll(async () => {
    cases = tableCases();
    profile = mkdtempSync(join(tmpdir(), 'rulekeeper-parity-profile-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM as string,
      headless: true,
      args: ['--no-sandbox', `--disable-extensions-except=${EXTENSION}`, `--load-extension=${EXTENSION}`],
    });
    worker = context.serviceWorkers()[0] ?? (await context.waitForEvent('serviceworker'));
  });

  afterAll(async () => {
    await context?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  it('agrees on every case whose rules compiled; differs elsewhere only on a rule the report says is partial', async () => {
    /** Where the compiled cases differ: none may. */
    const disagreements: string[] = [];
    /** Where the other cases differ: each on a rule reported partial or not compiled, and why. */
    const reported: string[] = [];
    /** Where the other cases differ on rules all reported compiled: none may. */
    const unreported: string[] = [];
    let compared = 0;
    let partlyCompared = 0;
    for (const { table, title, rules, request } of cases) {
      const { rules: browserRules, report } = compileBrowserRules(rules);
      const compiled = report.every((entry) => entry.status === 'compiled');
      if (compiled) compared++;
      else partlyCompared++;
      const name = `${table} › ${title} (${request.url})`;
      const installed = await worker.evaluate(async (addRules) => {
        const dnr = chrome.declarativeNetRequest;
        const removeRuleIds = (await dnr.getDynamicRules()).map((rule) => rule.id);
        try {
          await dnr.updateDynamicRules({ removeRuleIds, addRules: addRules as never });
          return '';
        } catch (error) {
          return String(error);
        }
      }, browserRules);
      if (installed) {
        // Never allowed: one refused rule makes Chrome refuse every rule installed with it.
        disagreements.push(`${name}: Chromium refused the rules: ${installed}`);
        continue;
      }
      // The engine chains URL changes within one request; Chrome redirects once per request, and the
      // browser sends the redirected request, which both evaluate again: where each ends is compared.
      const engine = engineEnd(rules, request);
      const matched = new Set<number>();
      const browser = await chromeHops(worker, browserRules, request, matched);
      const last = browser.at(-1);
      const chromeEnd: End =
        browser.length >= MAX_HOPS
          ? 'loop'
          : last === undefined
            ? withoutFragment(new URL(request.url).href)
            : 'cancelled' in last
              ? 'cancelled'
              : last.url;
      if (engine.end === chromeEnd) continue;
      const hops = browser.map((hop) => ('url' in hop ? hop.url : 'cancelled')).join(' → ');
      const line = `${name}: the engine ends ${engine.end}, Chromium ${hops || 'does nothing'}`;
      if (compiled) {
        disagreements.push(line);
        continue;
      }
      // The rules that took part: those that matched, in the engine or in Chromium.
      const involved = new Set(engine.matched);
      for (const entry of report)
        if (entry.pairs?.some((pair) => pair.browserRuleIds.some((id) => matched.has(id))))
          involved.add(entry.ruleId);
      const saying = report.filter((entry) => entry.status !== 'compiled' && involved.has(entry.ruleId));
      if (saying.length === 0) unreported.push(line);
      else
        reported.push(
          `${line}\n${saying.map((entry) => `    ${entry.ruleId} (${entry.status}): ${entry.reasons.join('; ')}`).join('\n')}`,
        );
    }
    const agree = compared - disagreements.length;
    const partlyAgree = partlyCompared - reported.length - unreported.length;
    console.log(
      `browser parity: ${agree} of ${compared} table cases agree in Chromium ` +
        `(the ${partlyCompared} of ${cases.length} cases that have a rule the compiler reports partial or not compiled: ` +
        `${partlyAgree} agree, ${reported.length} differ on a rule so reported, ${unreported.length} on none)`,
    );
    for (const line of [...disagreements, ...unreported]) console.log(`  disagrees: ${line}`);
    for (const line of reported) console.log(`  differs, as reported: ${line}`);
    expect(compared).toBeGreaterThan(150);
    expect(disagreements).toEqual([]);
    expect(unreported).toEqual([]);
  }, 600_000);

  it("never writes a regexFilter Chromium refuses: the compiler's RE2 budget against isRegexSupported", async () => {
    // Values around the budget, on every key and kind of pattern the compiler writes: one refused
    // regex makes Chrome refuse the whole updateDynamicRules call, so the estimate must err low.
    const sources: Record<string, unknown>[] = [];
    for (let n = 10; n <= 130; n += 6) {
      const text = 'ab.'.repeat(n / 3);
      sources.push({ key: 'host', operator: 'Equals', value: text });
      sources.push({ key: 'host', operator: 'Contains', value: text });
      sources.push({ key: 'path', operator: 'Contains', value: `/${text}` });
      sources.push({ key: 'path', operator: 'Wildcard_Matches', value: `*/${text}*` });
      sources.push({ key: 'Url', operator: 'Contains', value: `${text}*` });
      sources.push({ key: 'Url', operator: 'Matches', value: `/${'[^/]x'.repeat(n / 10)}.+/` });
      sources.push({ key: 'Url', operator: 'Matches', value: `/(${'a|'.repeat(n / 4)}b)\\d{2}/i` });
    }
    const rules = sources.map((source, i) => ({
      id: `c${i}`,
      name: 'c',
      ruleType: 'Cancel',
      status: 'Active',
      pairs: [{ source }],
    }));
    const written = compileBrowserRules(rules).rules;
    const verdicts = await worker.evaluate(
      async (conditions) =>
        Promise.all(
          conditions.map(async ({ regexFilter, isUrlFilterCaseSensitive }) => ({
            regexFilter,
            ...(await chrome.declarativeNetRequest.isRegexSupported({
              regex: regexFilter as string,
              isCaseSensitive: isUrlFilterCaseSensitive !== false,
            })),
          })),
        ),
      written.filter((rule) => rule.condition.regexFilter !== undefined).map((rule) => rule.condition),
    );
    console.log(
      `regex budget: ${verdicts.length} of ${sources.length} sources written as a regexFilter, all checked by Chromium`,
    );
    expect(verdicts.length).toBeGreaterThan(sources.length / 3);
    expect(verdicts.filter((verdict) => !verdict.isSupported)).toEqual([]);
  }, 120_000);
});
