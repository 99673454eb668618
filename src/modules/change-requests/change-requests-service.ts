// The rules of change requests (decisions §19): operations checked as the direct routes check them,
// evidence of what they would do, reviews by someone other than the author, and the merge that applies
// every operation in one transaction as one revision naming the change request, or nothing when an
// object it touches moved since its base revision.
//
// States: `open` → `approved` (an approval of the current version, no request for changes on it) or
// `rejected` (a request for changes on the current version, until its reviewer approves or the author
// updates it); an update by the author makes it `open` again (the reviews of earlier versions no longer
// count); `approved` → `merged`; any of the three → `closed`. `merged` and `closed` are final.
import type { ChangeRequestReviewsTable, Db } from '../../db/tables.js';
import { AppError } from '../../errors.js';
import { readListQuery } from '../../http/list.js';
import { readPayload } from '../../http/payload.js';
import type { Page } from '../../http/replies.js';
import { randomSuffix } from '../../ids.js';
import type { Principal } from '../../model/principal.js';
import { actorOf } from '../activity/activity-actor.js';
import type { ActivityService } from '../activity/activity-service.js';
import type { ChangeInput, ChangesService } from '../changes/changes-service.js';
import type { GroupsService } from '../groups/groups-service.js';
import type { GroupsStore } from '../groups/groups-store.js';
import { grants, reachOf } from '../keys/key-scopes.js';
import type { RulesService } from '../rules/rules-service.js';
import type { RulesStore } from '../rules/rules-store.js';
import type { SettingsService } from '../settings/settings-service.js';
import { checkOperations, type Effect } from './change-requests-input.js';
import {
  type ChangeRequest,
  type ChangeRequestEvent,
  type ChangeRequestListItem,
  checkChangeRequestCreate,
  checkChangeRequestListQuery,
  checkChangeRequestUpdate,
  checkReviewBody,
  type Evidence,
  type Operation,
  type State,
} from './change-requests-schemas.js';
import type { ChangeRequestRow, ChangeRequestsStore, ReviewRow } from './change-requests-store.js';

const NOTHING_IGNORED = new Set<string>();
/** States a change request is still under way in: updated, reviewed, closed. */
const UNDER_WAY: readonly State[] = ['open', 'approved', 'rejected'];

/**
 * Computes the evidence of `effects` on the workspace's rules as they are (off the event loop, within
 * the workspace's limits); an AppError (limits, a busy pool) makes the evidence `failed`, not the write.
 */
export type EvidenceOf = (principal: Principal, effects: Effect[]) => Promise<Evidence>;

/**
 * Told of each step of a change request's life inside the transaction that makes it (the webhooks'
 * outbox is written there, wired at landing).
 */
export type ChangeRequestEvents = (
  trx: Db,
  workspaceId: string,
  type: ChangeRequestEvent,
  changeRequest: ChangeRequest,
) => Promise<void>;

/** What a change request's id looks like (`cr_` and 12 of [0-9a-z]). */
const ID_FORM = /^cr_[0-9a-z]{1,64}$/;
const notFound = () => new AppError('CHANGE_REQUEST_NOT_FOUND');
const refused = (message: string) => new AppError('UNAUTHORIZED_ACTION', [{ path: '', message }]);
const wrongState = (message: string) => new AppError('CHANGE_REQUEST_STATE', [{ path: '', message }]);

/** The reviews that count: each reviewer's latest, of the current version. */
function counting(reviews: ReviewRow[], version: number): Set<ReviewRow> {
  const latest = new Map<string, ReviewRow>();
  for (const review of reviews) latest.set(review.reviewer_user_id, review);
  return new Set([...latest.values()].filter((review) => review.version === version));
}

/** The state the reviews of the current version give a change request under way. */
function stateOf(reviews: ReviewRow[], version: number): State {
  const current = [...counting(reviews, version)];
  if (current.some((review) => review.verdict === 'request_changes')) return 'rejected';
  if (current.some((review) => review.verdict === 'approve')) return 'approved';
  return 'open';
}

function listItem(row: ChangeRequestRow): Omit<ChangeRequestListItem, 'operationCount'> {
  return {
    id: row.id,
    title: row.title,
    state: row.state,
    author: row.author_user_id,
    authorName: row.author_name,
    baseRevision: Number(row.base_revision),
    version: row.version,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    mergedRevision: row.merged_revision === null ? null : Number(row.merged_revision),
    endedBy: row.ended_by,
    endedAt: row.ended_at === null ? null : Number(row.ended_at),
  };
}

function toChangeRequest(row: ChangeRequestRow, reviews: ReviewRow[]): ChangeRequest {
  const counted = counting(reviews, row.version);
  return {
    ...listItem(row),
    description: row.description,
    operations: JSON.parse(row.operations) as Operation[],
    reviews: reviews.map((review) => ({
      by: review.reviewer_user_id,
      byName: review.reviewer_name,
      verdict: review.verdict,
      comment: review.comment,
      at: Number(review.at),
      version: review.version,
      current: counted.has(review),
    })),
    evidence: JSON.parse(row.evidence) as Evidence,
  };
}

/** A title trimmed and not blank, or the error it deserves. */
function title(text: string): string {
  const trimmed = text.trim();
  if (trimmed === '')
    throw new AppError('CHANGE_REQUEST_PAYLOAD_INVALID', [{ path: '/title', message: 'must not be blank' }]);
  return trimmed;
}

export function createChangeRequestsService(deps: {
  db: Db;
  store: ChangeRequestsStore;
  rules: Pick<RulesService, 'inTransaction'>;
  groups: Pick<GroupsService, 'inTransaction'>;
  rulesStore: Pick<RulesStore, 'find'>;
  groupsStore: Pick<GroupsStore, 'find'>;
  changes: Pick<ChangesService, 'record' | 'revision'>;
  settings: Pick<SettingsService, 'of'>;
  config: { maxDelayMs: number };
  evidence?: EvidenceOf;
  events?: ChangeRequestEvents;
  activity: Pick<ActivityService, 'record'>;
}) {
  const { db, store, changes } = deps;
  const events: ChangeRequestEvents = deps.events ?? (async () => {});
  const finders = {
    rule: (trx: Db, id: string) => deps.rulesStore.find(trx, id),
    group: (trx: Db, id: string) => deps.groupsStore.find(trx, id),
  };

  const check = (principal: Principal, operations: Operation[]) =>
    checkOperations(db, principal, operations, finders, deps.config.maxDelayMs);

  async function evidenceOf(principal: Principal, effects: Effect[]): Promise<Evidence> {
    if (!deps.evidence) return { status: 'pending' };
    try {
      return await deps.evidence(principal, effects);
    } catch (error) {
      if (error instanceof AppError)
        return { status: 'failed', reason: error.details?.[0]?.message ?? error.message };
      throw error;
    }
  }

  async function load(trx: Db | undefined, principal: Principal, id: string): Promise<ChangeRequestRow> {
    // No stored id has another form, and PostgreSQL would refuse to compare some text (a NUL).
    if (!ID_FORM.test(id)) throw notFound();
    const row = await store.find(trx, principal.workspaceId, id);
    if (!row) throw notFound();
    return row;
  }

  /**
   * A step told of inside its transaction: to the listener (the webhooks' outbox), and to the activity
   * as who took it, how, on which change request (its title, never its operations nor its evidence).
   */
  async function step(
    trx: Db,
    principal: Principal,
    address: string | null,
    type: ChangeRequestEvent,
    changeRequest: ChangeRequest,
    detail: Record<string, string | number> = {},
  ): Promise<void> {
    await events(trx, principal.workspaceId, type, changeRequest);
    await deps.activity.record(trx, {
      workspaceId: principal.workspaceId,
      kind: `change_request_${type}`,
      actor: actorOf(principal, address),
      object: { type: 'change_request', id: changeRequest.id },
      detail: { title: changeRequest.title, ...detail },
    });
  }

  async function view(trx: Db | undefined, principal: Principal, id: string): Promise<ChangeRequest> {
    const row = await load(trx, principal, id);
    return toChangeRequest(row, await store.reviews(trx, row.id));
  }

  /** Who may review under the workspace's `reviewers` setting: admins (and owners), or editors too. */
  async function mayReview(principal: Principal): Promise<void> {
    const settings = await deps.settings.of(principal.workspaceId);
    const needed = settings.reviewers === 'editors' ? 'write' : 'admin';
    if (!grants(reachOf(principal), needed))
      throw refused(
        `reviewing needs the ${needed === 'admin' ? 'admin' : 'editor'} role in this workspace (its reviewers setting is ${settings.reviewers})`,
      );
  }

  return {
    /** POST /v1/change-requests. */
    async create(principal: Principal, body: unknown, address: string | null = null): Promise<ChangeRequest> {
      const input = readPayload(
        body,
        checkChangeRequestCreate,
        'CHANGE_REQUEST_PAYLOAD_INVALID',
        NOTHING_IGNORED,
      );
      const name = title(input.title);
      // Read before the operations are checked: what moves after it is a conflict at the merge.
      const base = await changes.revision(principal.workspaceId);
      const effects = await check(principal, input.operations);
      const evidence = await evidenceOf(principal, effects);
      const now = Date.now();
      const id = `cr_${randomSuffix(12)}`;
      return db.transaction().execute(async (trx) => {
        await store.insert(trx, {
          id,
          workspace_id: principal.workspaceId,
          title: name,
          description: input.description ?? '',
          author_user_id: principal.userId,
          state: 'open',
          base_revision: base,
          version: 1,
          operations: JSON.stringify(input.operations),
          evidence: JSON.stringify(evidence),
          created_at: now,
          updated_at: now,
          merged_revision: null,
          ended_by: null,
          ended_at: null,
        });
        const made = await view(trx, principal, id);
        await step(trx, principal, address, 'opened', made);
        return made;
      });
    },

    get: (principal: Principal, id: string) => view(undefined, principal, id),

    async list(principal: Principal, query: unknown): Promise<Page<ChangeRequestListItem>> {
      const q = readListQuery(query, checkChangeRequestListQuery);
      const { rows, total } = await store.list(principal.workspaceId, q.state, q.offset, q.pageSize);
      const items = rows.map((row) => ({
        ...listItem(row),
        operationCount: (JSON.parse(row.operations) as unknown[]).length,
      }));
      return { items, total, offset: q.offset };
    },

    /**
     * PATCH /v1/change-requests/:id: its author's, while under way. New operations are checked and
     * written against the workspace as it is now (the base revision moves); every update makes it
     * `open` again and its evidence is computed again.
     */
    async update(
      principal: Principal,
      id: string,
      body: unknown,
      address: string | null = null,
    ): Promise<ChangeRequest> {
      const row = await load(undefined, principal, id);
      if (row.author_user_id !== principal.userId) throw refused('only its author updates a change request');
      if (!UNDER_WAY.includes(row.state)) throw wrongState(`the change request is ${row.state}`);
      const input = readPayload(
        body,
        checkChangeRequestUpdate,
        'CHANGE_REQUEST_PAYLOAD_INVALID',
        NOTHING_IGNORED,
      );
      const name = input.title === undefined ? row.title : title(input.title);
      const base = input.operations
        ? await changes.revision(principal.workspaceId)
        : Number(row.base_revision);
      const operations = input.operations ?? (JSON.parse(row.operations) as Operation[]);
      let evidence: Evidence;
      if (input.operations) evidence = await evidenceOf(principal, await check(principal, operations));
      else {
        // The same operations on the workspace as it is now; one that no longer applies says why.
        try {
          evidence = await evidenceOf(principal, await check(principal, operations));
        } catch (error) {
          if (!(error instanceof AppError)) throw error;
          const detail = error.details?.[0];
          evidence = {
            status: 'failed',
            reason: `${error.message}${detail ? ` at ${detail.path}: ${detail.message}` : ''}`,
          };
        }
      }
      return db.transaction().execute(async (trx) => {
        const changed = await store.update(trx, id, UNDER_WAY, {
          title: name,
          description: input.description ?? row.description,
          operations: JSON.stringify(operations),
          evidence: JSON.stringify(evidence),
          base_revision: base,
          version: row.version + 1,
          state: 'open',
          updated_at: Date.now(),
        });
        if (!changed) throw wrongState('the change request was merged or closed meanwhile');
        const updated = await view(trx, principal, id);
        await step(trx, principal, address, 'updated', updated);
        return updated;
      });
    },

    /** POST /v1/change-requests/:id/reviews: not by its author (whatever key or session they use). */
    async review(
      principal: Principal,
      id: string,
      body: unknown,
      address: string | null = null,
    ): Promise<ChangeRequest> {
      const row = await load(undefined, principal, id);
      if (row.author_user_id === principal.userId)
        throw refused('the author of a change request cannot review it');
      await mayReview(principal);
      const input = readPayload(body, checkReviewBody, 'CHANGE_REQUEST_PAYLOAD_INVALID', NOTHING_IGNORED);
      if (!UNDER_WAY.includes(row.state)) throw wrongState(`the change request is ${row.state}`);
      return db.transaction().execute(async (trx) => {
        const current = await load(trx, principal, id);
        const review: ChangeRequestReviewsTable = {
          id: `crv_${randomSuffix(12)}`,
          change_request_id: id,
          reviewer_user_id: principal.userId,
          verdict: input.verdict,
          comment: input.comment ?? '',
          version: current.version,
          at: Date.now(),
        };
        await store.insertReview(trx, review);
        const reviews = await store.reviews(trx, id);
        const state = stateOf(reviews, current.version);
        if (!(await store.update(trx, id, UNDER_WAY, { state })))
          throw wrongState('the change request was merged or closed meanwhile');
        const reviewed = await view(trx, principal, id);
        await step(trx, principal, address, 'reviewed', reviewed, { verdict: input.verdict });
        return reviewed;
      });
    },

    /**
     * POST /v1/change-requests/:id/merge: every operation applied in one transaction, with the rules'
     * and groups' own write logic, and recorded as one revision naming the change request; `409` naming
     * every object touched that changed since the base revision, and nothing applied.
     */
    async merge(principal: Principal, id: string, address: string | null = null): Promise<ChangeRequest> {
      return db.transaction().execute(async (trx) => {
        await store.lockWorkspace(trx, principal.workspaceId);
        const row = await load(trx, principal, id);
        if (row.state !== 'approved')
          throw wrongState(
            row.state === 'rejected'
              ? 'changes were requested on this change request: its author updates it first'
              : row.state === 'open'
                ? 'a change request is merged once approved'
                : `the change request is ${row.state}`,
          );
        const operations = JSON.parse(row.operations) as Operation[];
        const base = Number(row.base_revision);
        const touched = operations.flatMap((op, index) =>
          op.op !== 'create' && op.id ? [{ objectType: op.kind, id: op.id, index }] : [],
        );
        const last = await store.lastRevisions(trx, principal.workspaceId, touched);
        const moved = touched.flatMap(({ objectType, id: objectId, index }) => {
          const revision = last.get(`${objectType} ${objectId}`) ?? 0;
          return revision > base
            ? [
                {
                  path: `/operations/${index}/id`,
                  message: `${objectType} "${objectId}" changed at revision ${revision}, after the base revision ${base}`,
                },
              ]
            : [];
        });
        if (moved.length > 0) throw new AppError('CHANGE_REQUEST_CONFLICT', moved);

        const actor = { ...principal, changeRequestId: id };
        const written: ChangeInput[] = [];
        const refs = new Map<string, string>();
        const apply = async (index: number, work: () => Promise<ChangeInput[]>) => {
          try {
            written.push(...(await work()));
          } catch (error) {
            if (!(error instanceof AppError)) throw error;
            const details = error.details?.length
              ? error.details.map((d) => ({ ...d, path: `/operations/${index}/body${d.path}` }))
              : [{ path: `/operations/${index}`, message: error.message }];
            throw new AppError(error.code, details);
          }
        };
        // New groups first: rules of the change request may go into them.
        for (const [index, op] of operations.entries()) {
          if (op.kind !== 'group' || op.op !== 'create') continue;
          await apply(index, async () => {
            const made = await deps.groups.inTransaction.create(trx, actor, op.body);
            if (op.id) refs.set(op.id, (made[0] as ChangeInput).id);
            return made;
          });
        }
        for (const [index, op] of operations.entries()) {
          if (op.kind === 'group' && op.op === 'create') continue;
          const sent = op.body as Record<string, unknown> | undefined;
          const ref = sent?.groupId;
          const body =
            sent && typeof ref === 'string' && ref.startsWith('$')
              ? { ...sent, groupId: refs.get(ref) ?? ref }
              : sent;
          const target = op.id ?? '';
          await apply(index, async () => {
            if (op.kind === 'rule') {
              if (op.op === 'create') return [await deps.rules.inTransaction.create(trx, actor, body)];
              if (op.op === 'update')
                return [await deps.rules.inTransaction.update(trx, actor, target, body)];
              return [await deps.rules.inTransaction.remove(trx, actor, target)];
            }
            if (op.op === 'update') return deps.groups.inTransaction.update(trx, actor, target, body);
            return deps.groups.inTransaction.remove(trx, actor, target);
          });
        }
        const revision = await changes.record(trx, actor, written);
        const done = await store.update(
          trx,
          id,
          ['approved'],
          { state: 'merged', merged_revision: revision, ended_by: principal.userId, ended_at: Date.now() },
          row.version,
        );
        if (!done) throw wrongState('the change request was updated, merged or closed meanwhile');
        const merged = await view(trx, principal, id);
        await step(trx, principal, address, 'merged', merged, { revision });
        return merged;
      });
    },

    /** POST /v1/change-requests/:id/close: by its author, or an admin or owner; while under way. */
    async close(principal: Principal, id: string, address: string | null = null): Promise<ChangeRequest> {
      const row = await load(undefined, principal, id);
      if (row.author_user_id !== principal.userId && reachOf(principal) !== 'admin')
        throw refused('a change request is closed by its author, an admin or an owner');
      return db.transaction().execute(async (trx) => {
        const closed = await store.update(trx, id, UNDER_WAY, {
          state: 'closed',
          ended_by: principal.userId,
          ended_at: Date.now(),
        });
        if (!closed) throw wrongState(`the change request is ${(await load(trx, principal, id)).state}`);
        const made = await view(trx, principal, id);
        await step(trx, principal, address, 'closed', made);
        return made;
      });
    },
  };
}

export type ChangeRequestsService = ReturnType<typeof createChangeRequestsService>;
