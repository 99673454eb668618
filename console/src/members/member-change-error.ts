// Why a change of a member was refused, in words that say what to do about it: the service's own
// message (and its detail, which names the role that was short) after what was not done.
import { ApiError } from '../api.js';
import { describeError } from '../session.js';

export function memberChangeError(what: string, failure: unknown): string {
  if (failure instanceof ApiError) {
    if (failure.code === 'LAST_OWNER')
      return `${what}: the workspace must keep at least one owner. Make another member an owner first.`;
    if (failure.code === 'MEMBER_NOT_FOUND') return `${what}: they are no longer a member.`;
    const detail = failure.details.map((d) => d.message).join('; ');
    return `${what}: ${failure.message}${detail ? ` (${detail})` : ''}.`;
  }
  return `${what}: ${describeError(failure)}`;
}
