// Shapes of the hits (decision 21): the report a runtime sends (POST /v1/hits), a rule's hits
// (GET /v1/rules/:ruleId/hits) and the workspace's rules by last hit (GET /v1/hits).
import { type Static, Type } from '@sinclair/typebox';
import { pageQuery } from '../../http/schemas.js';
import { EPOCH_MS_BIGINT, MAX_EPOCH_MS, Timestamp } from '../../model/common.js';
import { compile } from '../../validation.js';

/** The kinds of runtime that report, each counted apart. */
export const HIT_SOURCES = ['proxy', 'extension', 'playwright', 'runtime'] as const;
export type HitSource = (typeof HIT_SOURCES)[number];

/** Entries in one report; a runtime with more rules acting sends them in several reports. */
export const MAX_HIT_ENTRIES = 1000;
/** One entry's count is taken up to this; more in one report (10 s of a runtime) is not believed. */
export const MAX_HIT_COUNT = 1_000_000;
/**
 * The body limit of a report: 1,000 entries of the longest rule id (42 characters) with the longest
 * numbers fit in a quarter of it; a report of a million ids is refused (413) before it is parsed.
 */
export const MAX_HITS_BODY_BYTES = 256 * 1024;

const Source = Type.Union(
  HIT_SOURCES.map((source) => Type.Literal(source)),
  {
    description:
      'Which kind of runtime: `proxy` (`rulekeeper proxy`), `extension` (the browser extension), ' +
      '`playwright` (`rulekeeper/playwright`) or `runtime` (`rulekeeper/runtime` in your own code).',
  },
);

const HitCount = Type.Object(
  {
    ruleId: Type.String({
      maxLength: 64,
      description: "The rule that acted. An id that is not one of the workspace's rules is ignored.",
      examples: ['Redirect_a1b2c'],
    }),
    count: Type.Integer({
      minimum: 1,
      maximum: 2 ** 31 - 1,
      description: `How many times it acted since the last report; taken up to ${MAX_HIT_COUNT.toLocaleString('en')}.`,
    }),
    firstAt: Type.Integer({
      minimum: 0,
      maximum: MAX_EPOCH_MS,
      description: `${EPOCH_MS_BIGINT} When it first acted in this batch; moved into the last 24 hours if outside.`,
    }),
    lastAt: Type.Integer({
      minimum: 0,
      maximum: MAX_EPOCH_MS,
      description: `${EPOCH_MS_BIGINT} When it last acted in this batch; moved into the last 24 hours if outside.`,
    }),
  },
  { additionalProperties: false },
);

export const HitsReport = Type.Object(
  {
    source: Source,
    counts: Type.Array(HitCount, {
      maxItems: MAX_HIT_ENTRIES,
      description: `The rules that acted, up to ${MAX_HIT_ENTRIES} (an empty list says the runtime is running).`,
    }),
  },
  {
    $id: 'HitsReport',
    additionalProperties: false,
    examples: [
      {
        source: 'proxy',
        counts: [{ ruleId: 'Redirect_a1b2c', count: 12, firstAt: 1763769600000, lastAt: 1763769609000 }],
      },
    ],
  },
);
export type HitsReport = Static<typeof HitsReport>;
export const checkHitsReport = compile(HitsReport);

export const HitsReceipt = Type.Object(
  {
    accepted: Type.Integer({ minimum: 0, description: "Entries counted: the workspace's rules." }),
    ignored: Type.Integer({
      minimum: 0,
      description: "Entries not counted: ids that are not the workspace's rules (whatever else they are).",
    }),
  },
  { additionalProperties: false },
);
export type HitsReceipt = Static<typeof HitsReceipt>;

const count = (description: string) => Type.Integer({ minimum: 0, description });
const LastHit = Type.Union([Timestamp, Type.Null()], {
  description: 'When it last acted (epoch ms), as far as the kept 90 days tell; null: not in them.',
});

export const RuleHits = Type.Object(
  {
    ruleId: Type.String(),
    lastHitAt: LastHit,
    total7Days: count('Times it acted in the last 7 days, every runtime together.'),
    total30Days: count('Times it acted in the last 30 days.'),
    days: Type.Array(
      Type.Object(
        {
          date: Type.String({ description: 'The day, UTC.', examples: ['2026-11-28'] }),
          count: count('Times it acted that day.'),
        },
        { additionalProperties: false },
      ),
      { description: 'The last 30 days, oldest first, today last (days without hits count 0).' },
    ),
    sources: Type.Array(
      Type.Object(
        {
          source: Source,
          total7Days: count('Times it acted there in the last 7 days.'),
          total30Days: count('Times it acted there in the last 30 days.'),
          lastHitAt: LastHit,
        },
        { additionalProperties: false },
      ),
      {
        description:
          'Each kind of runtime that saw it act in the last 30 days, most recent first (then the most hits).',
      },
    ),
  },
  { $id: 'RuleHits', additionalProperties: false },
);
export type RuleHits = Static<typeof RuleHits>;

export const RuleLastHit = Type.Object(
  {
    ruleId: Type.String(),
    lastHitAt: LastHit,
    total7Days: count('Times it acted in the last 7 days.'),
  },
  { $id: 'RuleLastHit', additionalProperties: false },
);
export type RuleLastHit = Static<typeof RuleLastHit>;

/** The query of GET /v1/hits: paging only, as documented or as checked (`checked`: see pageQuery). */
const hitsQuery = (checked: boolean) => Type.Object(pageQuery(checked), { additionalProperties: false });
export const HitsListQuery = hitsQuery(false);
export const checkHitsListQuery = compile(hitsQuery(true));
