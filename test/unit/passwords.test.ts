// Passwords: scrypt at the documented cost unless PASSWORD_SCRYPT_N says otherwise, each hash carrying
// its own parameters (so a hash made at one cost verifies after the setting changes), and a decoy an
// unknown email is checked against at the same cost.
import { expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { decoyHash, hashPassword, SCRYPT, verifyPassword } from '../../src/modules/users/passwords.js';

it('hashes at the documented cost by default (N=2^15, r=8, p=3), salted, and verifies only the password', async () => {
  const [first, second] = await Promise.all([
    hashPassword('correct horse battery'),
    hashPassword('correct horse battery'),
  ]);
  expect(first).toMatch(/^scrypt\$32768\$8\$3\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
  expect(second).not.toBe(first);
  expect(SCRYPT).toEqual({ N: 2 ** 15, r: 8, p: 3 });
  expect(await verifyPassword('correct horse battery', first as string)).toBe(true);
  expect(await verifyPassword('correct horse batterY', first as string)).toBe(false);
});

it('a hash made at another cost still verifies: the cost travels in it', async () => {
  const cheap = await hashPassword('correct horse battery', 1024);
  expect(cheap.startsWith('scrypt$1024$8$3$')).toBe(true);
  expect(await verifyPassword('correct horse battery', cheap)).toBe(true);
  expect(await verifyPassword('correct horse battery', 'not a hash')).toBe(false);
});

it('the decoy is made at the asked cost, once, and no password is known for it', async () => {
  const decoy = await decoyHash(1024);
  expect(decoy.startsWith('scrypt$1024$')).toBe(true);
  expect(await decoyHash(1024)).toBe(decoy);
  expect(await verifyPassword('', decoy)).toBe(false);
});

it('PASSWORD_SCRYPT_N is a power of two from 2^10 to 2^20, 2^15 without it', () => {
  expect(loadConfig({}).passwordScryptN).toBe(32768);
  expect(loadConfig({ PASSWORD_SCRYPT_N: '65536' }).passwordScryptN).toBe(65536);
  for (const bad of ['1000', '512', '2097152', 'lots'])
    expect(() => loadConfig({ PASSWORD_SCRYPT_N: bad })).toThrow(ConfigError);
});
