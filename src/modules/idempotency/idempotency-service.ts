// Idempotent creates: a POST retried with the same Idempotency-Key gets the first response again,
// across instances, because the key is claimed in the same transaction that creates the object.

import { createHash } from 'node:crypto';
import type { Db } from '../../db/tables.js';
import { AppError } from '../../errors.js';
import type { Created } from '../../http/replies.js';
import { IDEMPOTENCY_KEY_PATTERN } from '../../http/schemas.js';
import type { Principal } from '../../model/principal.js';
import type { IdempotencyStore } from './idempotency-store.js';

export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;
const KEY_FORM = new RegExp(IDEMPOTENCY_KEY_PATTERN);

export function createIdempotencyService({ db, store }: { db: Db; store: IdempotencyStore }) {
  let creates = 0;

  return {
    /**
     * Runs `create` in one transaction; with a key, remembers its result for 24 hours per workspace.
     * `request` identifies what was asked (route and body): the same key with another request is 409.
     */
    async create<T>(
      principal: Principal,
      key: string | undefined,
      request: unknown,
      create: (trx: Db) => Promise<T>,
    ): Promise<Created<T>> {
      if (key === undefined) return { data: await db.transaction().execute(create), replayed: false };
      if (!KEY_FORM.test(key)) {
        throw new AppError('INVALID_IDEMPOTENCY_KEY', [
          { path: '', message: 'Idempotency-Key must be 1 to 255 visible ASCII characters' },
        ]);
      }
      const requestHash = createHash('sha256').update(JSON.stringify(request)).digest('hex');
      const now = Date.now();
      const result = await db.transaction().execute(async (trx): Promise<Created<T>> => {
        await store.forget(trx, now - IDEMPOTENCY_WINDOW_MS, principal.workspaceId, key);
        if (await store.claim(trx, { workspaceId: principal.workspaceId, key, requestHash, now })) {
          const data = await create(trx);
          await store.saveResponse(trx, principal.workspaceId, key, JSON.stringify(data));
          return { data, replayed: false };
        }
        const first = await store.find(trx, principal.workspaceId, key);
        if (!first?.response || first.request_hash !== requestHash)
          throw new AppError('IDEMPOTENCY_KEY_REUSED');
        return { data: JSON.parse(first.response) as T, replayed: true };
      });
      // Now and then, sweep every expired key, so the table stays the size of one day of creates.
      if (++creates % 1000 === 0) await store.forget(db, now - IDEMPOTENCY_WINDOW_MS);
      return result;
    },
  };
}

export type IdempotencyService = ReturnType<typeof createIdempotencyService>;
