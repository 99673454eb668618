// Passwords, stored with scrypt from node:crypto (memory-hard: guessing costs memory as well as time).
// The parameters travel inside each stored hash, so stronger ones later still verify the older hashes.
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scryptAsync = promisify(scrypt) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: { N: number; r: number; p: number; maxmem: number },
) => Promise<Buffer>;

/**
 * OWASP's scrypt setting of equal strength to N=2^17, p=1 with a quarter of the memory: 32 MiB and
 * about 250 ms a hash on one core of the machines we test on (docs/operations/security.md).
 */
export const SCRYPT = { N: 2 ** 15, r: 8, p: 3 } as const;
const KEY_LENGTH = 32;
const SALT_BYTES = 16;

export const MIN_PASSWORD_LENGTH = 12;
/** Longer is refused before hashing: a megabyte "password" is a way to burn our CPU, not a secret. */
export const MAX_PASSWORD_LENGTH = 256;

/** The memory scrypt needs for N and r, with room: Node refuses above its 32 MiB default otherwise. */
const maxmem = (N: number, r: number) => 256 * N * r;

function derive(password: string, salt: Buffer, N: number, r: number, p: number, keylen: number) {
  return scryptAsync(password.normalize('NFKC'), salt, keylen, { N, r, p, maxmem: maxmem(N, r) });
}

/**
 * `scrypt$N$r$p$salt$hash` (salt and hash base64url). `N` is PASSWORD_SCRYPT_N (SCRYPT.N by default;
 * the tests' is lower, so that signing in a hundred people takes less than a minute).
 */
export async function hashPassword(password: string, N: number = SCRYPT.N): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const { r, p } = SCRYPT;
  const key = await derive(password, salt, N, r, p, KEY_LENGTH);
  return ['scrypt', N, r, p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Whether `password` is the one `stored` was made from; a malformed `stored` matches nothing. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64url');
  const actual = await derive(
    password,
    Buffer.from(salt, 'base64url'),
    Number(n),
    Number(r),
    Number(p),
    expected.length,
  );
  return timingSafeEqual(actual, expected);
}

const decoys = new Map<number, Promise<string>>();

/**
 * A hash no password is known for, of cost `N`: checked when the email is unknown (or the user has no
 * password), so that the answer takes as long as a wrong password's and says nothing of who exists.
 */
export function decoyHash(N: number = SCRYPT.N): Promise<string> {
  let decoy = decoys.get(N);
  if (!decoy) {
    decoy = hashPassword(randomBytes(32).toString('base64url'), N);
    decoys.set(N, decoy);
  }
  return decoy;
}
