// Who may touch an object: only keys of the workspace it belongs to.
import { AppError, type ErrorCode } from '../../errors.js';
import type { Principal } from '../keys/keys-store.js';

/** The row, when it exists (else `notFound`) and belongs to the caller's workspace (else 403). */
export function accessible<T extends { workspace_id: string }>(
  row: T | undefined,
  principal: Principal,
  notFound: ErrorCode,
): T {
  if (!row) throw new AppError(notFound);
  if (row.workspace_id !== principal.workspaceId) throw new AppError('UNAUTHORIZED_ACTION');
  return row;
}
