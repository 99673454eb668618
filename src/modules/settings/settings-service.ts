// A workspace's settings, and the rule they make (decisions §19): while `review` is `required`, only a
// caller reaching `admin` (an admin's or owner's admin key or session) writes rules and groups
// directly; everyone else proposes change requests. The setting is read on every write, so each
// instance keeps it per workspace, forgotten when it changes here and when another instance announces
// a change (the access signal, as roles and keys are forgotten).
import type { ChangeSignals } from '../../db/change-signals.js';
import type { Db } from '../../db/tables.js';
import { AppError } from '../../errors.js';
import { readPayload } from '../../http/payload.js';
import type { Principal } from '../../model/principal.js';
import { actorOf } from '../activity/activity-actor.js';
import type { ActivityService } from '../activity/activity-service.js';
import { reachOf } from '../keys/key-scopes.js';
import { checkSettingsPatch, DEFAULT_SETTINGS, type Settings } from './settings-schemas.js';
import type { SettingsStore } from './settings-store.js';

const NOTHING_IGNORED = new Set<string>();
/** Workspaces whose settings one instance keeps; the least recently read go first. */
const MAX_KEPT = 10_000;

export function createSettingsService(deps: {
  db: Db;
  store: SettingsStore;
  signals: Pick<ChangeSignals, 'announceAccess'>;
  activity: Pick<ActivityService, 'record'>;
}) {
  const { db, store } = deps;
  const kept = new Map<string, Settings>();
  /** Bumped on every forget: a read that started before it does not keep what it read. */
  let generation = 0;

  function keep(workspaceId: string, settings: Settings): void {
    kept.delete(workspaceId);
    if (kept.size >= MAX_KEPT) kept.delete(kept.keys().next().value as string);
    kept.set(workspaceId, settings);
  }

  /** The workspace's settings: from memory when kept (synchronous), else read once and kept. */
  function of(workspaceId: string): Settings | Promise<Settings> {
    const hit = kept.get(workspaceId);
    if (hit) return hit;
    const started = generation;
    return store.find(undefined, workspaceId).then((found) => {
      const settings = found ?? DEFAULT_SETTINGS;
      if (started === generation) keep(workspaceId, settings);
      return settings;
    });
  }

  /**
   * Whether `principal` may write rules and groups directly under `settings`: refused with
   * `409 Review required` (an editor, a `write` key); `true` when allowed only past the review (marked
   * so in the change log); `false` when review is off.
   */
  function directWrite(principal: Principal, settings: Settings): boolean {
    if (settings.review !== 'required') return false;
    if (reachOf(principal) !== 'admin')
      throw new AppError('REVIEW_REQUIRED', [
        {
          path: '',
          message:
            "this workspace's review is required: propose the change as a change request (POST /v1/change-requests)",
        },
      ]);
    return true;
  }

  /** Forgets the workspace's settings (every workspace's without one): they changed elsewhere. */
  function forget(workspaceId?: string): void {
    generation++;
    if (workspaceId === undefined) kept.clear();
    else kept.delete(workspaceId);
  }

  return {
    of,
    directWrite,
    forget,

    /** GET /v1/settings. */
    async get(principal: Principal): Promise<Settings> {
      return { ...(await of(principal.workspaceId)) };
    },

    /** PATCH /v1/settings: recorded in the activity and heard by every instance with its commit. */
    async update(principal: Principal, body: unknown, address: string | null): Promise<Settings> {
      const patch = readPayload(body, checkSettingsPatch, 'SETTINGS_PAYLOAD_INVALID', NOTHING_IGNORED);
      const { workspaceId } = principal;
      const settings = await db.transaction().execute(async (trx) => {
        await store.lock(trx, workspaceId);
        const before = (await store.find(trx, workspaceId)) ?? DEFAULT_SETTINGS;
        const after: Settings = {
          review: patch.review ?? before.review,
          reviewers: patch.reviewers ?? before.reviewers,
        };
        await store.save(trx, workspaceId, after, principal.userId, Date.now());
        for (const name of ['review', 'reviewers'] as const) {
          if (before[name] === after[name]) continue;
          await deps.activity.record(trx, {
            workspaceId,
            kind: 'setting_changed',
            actor: actorOf(principal, address),
            object: { type: 'setting', id: name },
            detail: { setting: name, from: before[name], to: after[name] },
          });
        }
        await deps.signals.announceAccess(trx, workspaceId);
        return after;
      });
      forget(workspaceId);
      return settings;
    },
  };
}

export type SettingsService = ReturnType<typeof createSettingsService>;
