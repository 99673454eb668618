// The hits (decision 21): runtimes report the rules that acted, as counts; the service keeps them per
// rule per hour per source for 90 days, and answers a rule's hits, the workspace's rules by last hit,
// and which Active rules never acted while runtimes were reporting (the lint's `never_acted`).
//
// A report is bounded everywhere an attacker could push: its size (a body limit, before parsing), its
// entries (1,000), each count (capped), its times (moved into the last day), and a key's reports per
// minute (counted by all instances together through Redis when it is set: report-limit.ts). Ids that
// are not the workspace's rules are dropped without a word about what else they are.
import type { Redis } from 'ioredis';
import type { Db } from '../../db/tables.js';
import { checkInOrder, RULES } from '../../http/checks.js';
import { readListQuery } from '../../http/list.js';
import { readPayload } from '../../http/payload.js';
import type { Page } from '../../http/replies.js';
import type { Finding } from '../../model/finding.js';
import type { Principal } from '../../model/principal.js';
import {
  checkHitsListQuery,
  checkHitsReport,
  HIT_SOURCES,
  type HitSource,
  type HitsReceipt,
  MAX_HIT_COUNT,
  type RuleHits,
  type RuleLastHit,
} from './hits-schemas.js';
import type { HitsStore, HourCount } from './hits-store.js';
import { createReportLimit } from './report-limit.js';

export const HOUR_MS = 60 * 60 * 1000;
export const DAY_MS = 24 * HOUR_MS;
/** How long hits are kept (decision 21). */
export const HITS_RETENTION_MS = 90 * DAY_MS;
/** A rule Active and unchanged this long, with runtimes reporting all along, that never acted. */
export const NEVER_ACTED_AFTER_MS = 14 * DAY_MS;
/** never_acted findings listed at most: the rest are the same news. */
const MAX_NEVER_ACTED = 500;

const NOTHING_IGNORED = new Set<string>();
const hourOf = (at: number) => Math.floor(at / HOUR_MS) * HOUR_MS;
const dayText = (at: number) => new Date(at).toISOString().slice(0, 10);

/** Runtimes reported 14 days ago or more, and in the last day, as of `hour`: never_acted may speak. */
function reportingAllAlong(reports: { first: number | null; last: number | null }, hour: number): boolean {
  const { first, last } = reports;
  return first !== null && last !== null && first <= hour - NEVER_ACTED_AFTER_MS && last >= hour - DAY_MS;
}

/** The rule a `never_acted` finding names. */
export interface NeverActedRule {
  id: string;
  name: string;
  ruleType: string;
}

/** What a report did, for the metrics. */
export interface ReportOutcome {
  source: HitSource;
  accepted: number;
  ignored: number;
}

export function createHitsService(deps: {
  db: Db;
  store: HitsStore;
  reportsPerMinute: number;
  /** Where every instance counts a key's reports together (REDIS_URL); else each counts alone. */
  redis?: Redis;
  /** Told when Redis fails to count (the instance counts alone meanwhile). */
  warn?(err: unknown): void;
  /** Told of every report taken (the metrics). */
  reported?(outcome: ReportOutcome): void;
  now?: () => number;
}) {
  const { db, store } = deps;
  const now = deps.now ?? Date.now;
  const limit = createReportLimit({
    perMinute: deps.reportsPerMinute,
    redis: deps.redis,
    now,
    warn: deps.warn,
  });

  return {
    /** POST /v1/hits: the report's counts of the workspace's rules added; the rest ignored. */
    async report(principal: Principal, body: unknown): Promise<HitsReceipt> {
      await limit.count(principal.keyId);
      const at = now();
      const report = readPayload(body, checkHitsReport, 'HITS_PAYLOAD_INVALID', NOTHING_IGNORED);
      const clamp = (time: number) => Math.min(at, Math.max(at - DAY_MS, time));
      const own = await store.ownRules(principal.workspaceId, [
        ...new Set(report.counts.map((c) => c.ruleId)),
      ]);
      // Entries of one rule in one hour are one row: added together here (a statement may not change
      // a row twice), each entry's count capped first.
      const merged = new Map<string, HourCount>();
      let ignored = 0;
      for (const entry of report.counts) {
        if (!own.has(entry.ruleId)) {
          ignored++;
          continue;
        }
        const lastAt = clamp(entry.lastAt);
        const firstAt = Math.min(clamp(entry.firstAt), lastAt);
        const hour = hourOf(lastAt);
        const count = Math.min(entry.count, MAX_HIT_COUNT);
        const key = `${entry.ruleId}\n${hour}`;
        const before = merged.get(key);
        if (before) {
          before.count = Math.min(before.count + count, MAX_HIT_COUNT);
          before.firstAt = Math.min(before.firstAt, firstAt);
          before.lastAt = Math.max(before.lastAt, lastAt);
        } else merged.set(key, { ruleId: entry.ruleId, hour, count, firstAt, lastAt });
      }
      await db
        .transaction()
        .execute((trx) =>
          store.add(trx, principal.workspaceId, report.source, hourOf(at), [...merged.values()]),
        );
      const receipt = { accepted: report.counts.length - ignored, ignored };
      deps.reported?.({ source: report.source, ...receipt });
      return receipt;
    },

    /** GET /v1/rules/:ruleId/hits: per day for 30 days, by source, the last 7 days, the last hit. */
    async ofRule(principal: Principal, ruleId: string): Promise<RuleHits> {
      await checkInOrder(principal, ruleId, { kind: RULES, find: () => store.ruleOwner(ruleId) });
      const at = now();
      const today = Math.floor(at / DAY_MS) * DAY_MS;
      const monthStart = today - 29 * DAY_MS;
      const weekStart = today - 6 * DAY_MS;
      const [rows, lastHitAt] = await Promise.all([
        store.hours(principal.workspaceId, ruleId, monthStart),
        store.lastHit(principal.workspaceId, ruleId),
      ]);
      const days = Array.from({ length: 30 }, (_, i) => ({
        date: dayText(monthStart + i * DAY_MS),
        count: 0,
      }));
      const sources = new Map<string, { total7Days: number; total30Days: number; lastHitAt: number }>();
      let total7Days = 0;
      let total30Days = 0;
      for (const row of rows) {
        const [hour, hits, last] = [Number(row.hour), Number(row.hits), Number(row.last_at)];
        const day = days[Math.floor((hour - monthStart) / DAY_MS)];
        if (!day) continue;
        day.count += hits;
        total30Days += hits;
        const week = hour >= weekStart ? hits : 0;
        total7Days += week;
        const source = sources.get(row.source) ?? { total7Days: 0, total30Days: 0, lastHitAt: 0 };
        source.total7Days += week;
        source.total30Days += hits;
        source.lastHitAt = Math.max(source.lastHitAt, last);
        sources.set(row.source, source);
      }
      return {
        ruleId,
        lastHitAt,
        total7Days,
        total30Days,
        days,
        sources: [...sources]
          .filter(([source]) => (HIT_SOURCES as readonly string[]).includes(source))
          .map(([source, totals]) => ({ source: source as HitSource, ...totals }))
          .sort((a, b) => b.lastHitAt - a.lastHitAt || b.total30Days - a.total30Days),
      };
    },

    /** GET /v1/hits: the workspace's rules, most recently acted first, then those that never did. */
    async list(principal: Principal, query: unknown): Promise<Page<RuleLastHit>> {
      const { offset, pageSize } = readListQuery(query, checkHitsListQuery);
      const today = Math.floor(now() / DAY_MS) * DAY_MS;
      const [rows, total] = await Promise.all([
        store.rulesByLastHit(principal.workspaceId, today - 6 * DAY_MS, offset, pageSize),
        store.ruleCount(principal.workspaceId),
      ]);
      const items = rows.map((row) => ({
        ruleId: row.id,
        lastHitAt: row.last_at === null ? null : Number(row.last_at),
        total7Days: Number(row.week ?? 0),
      }));
      return { items, total, offset };
    },

    /**
     * The lint's `never_acted` (info): Active rules unchanged for 14 days with no hit since their last
     * change, while runtimes were reporting for the workspace all along (a report 14 days ago or more,
     * and one in the last day). None when nothing reports: silence is not evidence. Asked as of the
     * current hour's start, so that the answer is a function of the hour, the revision and the reports
     * (what `neverActedMark` names): a finding falls due on the hour after its 14 days.
     */
    async neverActed(workspaceId: string): Promise<{ finding: Finding; rule: NeverActedRule }[]> {
      const hour = hourOf(now());
      const kept = hour - HITS_RETENTION_MS;
      if (!reportingAllAlong(await store.reportHours(workspaceId, kept), hour)) return [];
      const rows = await store.neverActed(workspaceId, hour - NEVER_ACTED_AFTER_MS, kept, MAX_NEVER_ACTED);
      return rows.map((row) => ({
        rule: { id: row.id, name: row.name, ruleType: row.rule_type },
        finding: {
          code: 'never_acted',
          severity: 'info',
          ruleIds: [row.id],
          pointers: [{ ruleId: row.id, path: '/status' }],
          message:
            `"${row.name}" has been Active for 14 days or more and never acted, while the workspace's ` +
            'runtimes were reporting the rules that did.',
          hint: 'If no traffic needs it any more, deactivate or delete it; else check its source matches the requests.',
        },
      }));
    },

    /**
     * What `neverActed` depends on besides the revision, named cheaply (no rule is read): the lint's
     * ETag carries it, so that a finding that falls due with time, or goes with a hit, is not hidden
     * behind a 304. "none" while runtimes were not reporting all along (no finding, whatever the hour);
     * else the current hour and the reports since the hour before (they only grow, and every hit comes
     * in a report, counted in its own transaction). Read before the lint is built, it can only be older
     * than the answer: a needless 200 later, never a 304 hiding a change.
     */
    async neverActedMark(workspaceId: string): Promise<string> {
      const hour = hourOf(now());
      const [hours, recent] = await Promise.all([
        store.reportHours(workspaceId, hour - HITS_RETENTION_MS),
        store.reportsSince(workspaceId, hour - HOUR_MS),
      ]);
      return reportingAllAlong(hours, hour) ? `${hour}:${recent}` : 'none';
    },

    /** Removes the hours older than 90 days (at `now`); answers how many rows went. */
    sweep: (at = now()) => store.sweep(hourOf(at - HITS_RETENTION_MS)),
  };
}

export type HitsService = ReturnType<typeof createHitsService>;
