// The rules of a workspace's membership: who may change whose role or remove whom, and that a
// workspace always keeps an owner. Every change is heard by every instance at once (the access
// signal), so a member demoted or removed loses the power of their keys everywhere.
import type { ChangeSignals } from '../../db/change-signals.js';
import type { Db } from '../../db/tables.js';
import { AppError } from '../../errors.js';
import { readPayload } from '../../http/payload.js';
import type { Principal } from '../../model/principal.js';
import type { Role } from '../../model/role.js';
import { actorOf } from '../activity/activity-actor.js';
import type { ActivityService } from '../activity/activity-service.js';
import { checkRoleChange, type Member } from './members-schemas.js';
import type { MembersStore } from './members-store.js';

const NOTHING_IGNORED = new Set<string>();

const ownersOnly = (what: string) =>
  new AppError('UNAUTHORIZED_ACTION', [{ path: '', message: `only an owner can ${what}` }]);

export function createMembersService(deps: {
  db: Db;
  store: MembersStore;
  signals: Pick<ChangeSignals, 'announceAccess'>;
  /** Forgets what this instance remembered of the workspace's keys (the others hear the signal). */
  forget: (workspaceId: string) => void;
  /** Where each change of a member is recorded, in its transaction (GET /v1/activity). */
  activity: Pick<ActivityService, 'record'>;
}) {
  const { activity } = deps;
  const { db, store } = deps;

  /**
   * Runs `work` in one transaction that changes who may do what in the workspace, announced with its
   * commit to every instance; this one forgets the workspace's keys once it committed.
   */
  async function changeAccess<T>(workspaceId: string, work: (trx: Db) => Promise<T>): Promise<T> {
    const result = await db.transaction().execute(async (trx) => {
      const done = await work(trx);
      await deps.signals.announceAccess(trx, workspaceId);
      return done;
    });
    deps.forget(workspaceId);
    return result;
  }

  /**
   * The member `userId` of the caller's workspace, changed by `change` in one transaction holding the
   * workspace's lock; a change that would leave no owner is refused and nothing changes.
   */
  async function changeMember(
    principal: Principal,
    userId: string,
    change: (trx: Db, member: Member) => Promise<Role | null>,
  ): Promise<Member | null> {
    const { workspaceId } = principal;
    return changeAccess(workspaceId, async (trx) => {
      await store.lockWorkspace(trx, workspaceId);
      const member = await store.find(trx, workspaceId, userId);
      if (!member) throw new AppError('MEMBER_NOT_FOUND');
      // Owners are made, unmade and removed by owners alone.
      if (member.role === 'owner' && principal.role !== 'owner')
        throw ownersOnly('change or remove an owner');
      const role = await change(trx, member);
      if (member.role === 'owner' && role !== 'owner' && (await store.countOwners(trx, workspaceId)) === 0)
        throw new AppError('LAST_OWNER');
      return role === null ? null : { ...member, role };
    });
  }

  return {
    list: (principal: Principal) => deps.store.list(principal.workspaceId),

    /**
     * PATCH /v1/members/:userId: the body read at step 7, after the member was found. `address`: the
     * client's, for the activity (none from the command line).
     */
    setRole(
      principal: Principal,
      userId: string,
      body: unknown,
      address: string | null = null,
    ): Promise<Member> {
      return changeMember(principal, userId, async (trx, member) => {
        const { role } = readPayload(body, checkRoleChange, 'MEMBER_PAYLOAD_INVALID', NOTHING_IGNORED);
        if (role === 'owner' && principal.role !== 'owner') throw ownersOnly('make an owner');
        if (role !== member.role) {
          await store.setRole(trx, principal.workspaceId, userId, role);
          await activity.record(trx, {
            workspaceId: principal.workspaceId,
            kind: 'member_role_changed',
            actor: actorOf(principal, address),
            object: { type: 'user', id: userId },
            detail: { from: member.role, to: role },
          });
        }
        return role;
      }) as Promise<Member>;
    },

    /** `rulekeeper members add`: a user (by id) made a member; 409 when they are one already. */
    async add(
      principal: Principal,
      userId: string,
      role: Role,
      address: string | null = null,
    ): Promise<void> {
      if (role === 'owner' && principal.role !== 'owner') throw ownersOnly('make an owner');
      await changeAccess(principal.workspaceId, async (trx) => {
        if (!(await store.add(trx, principal.workspaceId, userId, role, Date.now())))
          throw new AppError('MEMBER_EXISTS');
        await activity.record(trx, {
          workspaceId: principal.workspaceId,
          kind: 'member_added',
          actor: actorOf(principal, address),
          object: { type: 'user', id: userId },
          detail: { role },
        });
      });
    },

    /** DELETE /v1/members/:userId: their keys in this workspace stop working at once. */
    async remove(principal: Principal, userId: string, address: string | null = null): Promise<void> {
      await changeMember(principal, userId, async (trx, member) => {
        await store.remove(trx, principal.workspaceId, userId);
        await activity.record(trx, {
          workspaceId: principal.workspaceId,
          kind: 'member_removed',
          actor: actorOf(principal, address),
          object: { type: 'user', id: userId },
          detail: { role: member.role },
        });
        return null;
      });
    },
  };
}

export type MembersService = ReturnType<typeof createMembersService>;
