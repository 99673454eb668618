// A group body as the service takes it: read, checked and trimmed, or the error it deserves; POST,
// PUT and each group record of an import read it here.
import { AppError, type ErrorDetail } from '../../errors.js';
import { readPayload } from '../../http/payload.js';
import { checkGroupWrite, GROUP_READ_ONLY, type GroupWrite } from '../../model/group.js';

const MAX_NAME = 256;

/** The payload of a POST (`creating`) or PUT, or the error it deserves; names are trimmed. */
export function readGroupWrite(body: unknown, creating: boolean): GroupWrite {
  const payload = readPayload(body, checkGroupWrite, 'GROUP_PAYLOAD_INVALID', GROUP_READ_ONLY);
  if (payload.name !== undefined) payload.name = payload.name.trim();
  if (payload.name === '' || (creating && payload.name === undefined)) {
    throw new AppError('GROUP_NAME_REQUIRED', [{ path: '/name', message: 'a non-blank name is required' }]);
  }
  if (payload.name !== undefined && payload.name.length > MAX_NAME) {
    const detail: ErrorDetail = { path: '/name', message: `must be at most ${MAX_NAME} characters long` };
    throw new AppError('GROUP_PAYLOAD_INVALID', [detail]);
  }
  return payload;
}
