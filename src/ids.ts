// Generated ids, API keys and timestamps.
import { hash, randomBytes, randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

/** `length` characters of [0-9a-z] from a cryptographic source, without modulo bias. */
export function randomSuffix(length = 5): string {
  let out = '';
  while (out.length < length) {
    const byte = randomByte();
    // 252 = 7 * 36: bytes above it would favour the first letters.
    if (byte < 252) out += ALPHABET[byte % 36];
  }
  return out;
}

// Random bytes drawn 4 kB at a time: a call to the system's generator per id cost an import of
// 100,000 records two seconds. Each byte is used once.
const pool = Buffer.alloc(4096);
let used = pool.length;

function randomByte(): number {
  if (used === pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  return pool[used++] as number;
}

/** A new API key: 32 random bytes (256 bits), prefixed so that secret scanners can spot it. */
export function newApiKey(): string {
  return `rk_${randomBytes(32).toString('base64url')}`;
}

/**
 * Keys carry 256 bits of entropy, so a fast hash is enough to make a stolen table useless; lookup by
 * hash also means no comparison of secrets byte by byte.
 */
export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}

/** The next modificationDate: now, but always after the previous one, even within one millisecond. */
export function nextTimestamp(previous = 0): number {
  return Math.max(Date.now(), previous + 1);
}
