// The body of POST /v1/keys as the service takes it: read, checked and trimmed, or 400 with every
// problem at its JSON Pointer.
import { AppError, type ErrorDetail } from '../../errors.js';
import { payloadProblems } from '../../http/payload.js';
import { ENVIRONMENT_NAME_PATTERN } from '../../model/environment-names.js';
import { checkKeyCreate, type KeyCreate, MAX_KEY_NAME } from './keys-schemas.js';

const NOTHING_IGNORED = new Set<string>();
/** Names are printed by `keys list` and shown in consoles: no control characters (as the CLI). */
const CONTROL = /\p{Cc}/u;

/** What a new key asks for, `expiresAt` null for never. */
export interface KeyRequest {
  name: string;
  scope: KeyCreate['scope'];
  expiresAt: number | null;
  service: boolean;
  /** The environment to bind it to; null: none (`default`). */
  environment: string | null;
}

export function readKeyCreate(body: unknown, now: number): KeyRequest {
  const { payload, details } = payloadProblems(body, checkKeyCreate, NOTHING_IGNORED);
  const name = typeof payload.name === 'string' ? payload.name.trim() : undefined;
  const problem = (path: string, message: string) => {
    // Each place once: the schema may have named it already.
    if (!details.some((detail) => detail.path === path)) details.push({ path, message });
  };
  if (name !== undefined) {
    if (name === '') problem('/name', 'a non-blank name is required');
    else if (name.length > MAX_KEY_NAME) problem('/name', `must be at most ${MAX_KEY_NAME} characters long`);
    else if (CONTROL.test(name)) problem('/name', 'must not hold control characters');
  }
  // A key that expired already would be refused on its first use: surely not what was meant.
  if (typeof payload.expiresAt === 'number' && payload.expiresAt <= now)
    problem('/expiresAt', `must be in the future (now is ${now})`);
  if (typeof payload.environment === 'string' && !ENVIRONMENT_NAME_PATTERN.test(payload.environment))
    problem('/environment', 'is not an environment name');
  if (details.length > 0) throw new AppError('KEY_PAYLOAD_INVALID', details as ErrorDetail[]);
  return {
    name: name as string,
    scope: payload.scope,
    expiresAt: payload.expiresAt ?? null,
    service: payload.service ?? false,
    environment: payload.environment ?? null,
  };
}
