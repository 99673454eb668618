// Where a webhook may send: the inner addresses refused without WEBHOOK_ALLOW_PRIVATE (in every form,
// IPv4-mapped ones too), public ones allowed, and a name resolved to the address the send will use.
import { describe, expect, it } from 'vitest';
import { AddressRefused, isInnerAddress, resolveTarget } from '../../src/modules/webhooks/webhook-address.js';

describe('webhook addresses', () => {
  it.each([
    '127.0.0.1',
    '127.1.2.3',
    '10.0.0.1',
    '172.16.5.4',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    'fe80::1',
    'fd00::1',
    'fc00::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '::ffff:a9fe:a9fe',
    '64:ff9b::7f00:1',
    'not an address',
  ])('%s is inner', (address) => {
    expect(isInnerAddress(address)).toBe(true);
  });

  it.each(['93.184.215.14', '8.8.8.8', '1.1.1.1', '2606:4700::1111', '::ffff:8.8.8.8'])(
    '%s is public',
    (address) => {
      expect(isInnerAddress(address)).toBe(false);
    },
  );

  it('refuses a name with one inner address among public ones, and connects to the first checked', async () => {
    const names: Record<string, { address: string; family: number }[]> = {
      'mixed.example': [
        { address: '93.184.215.14', family: 4 },
        { address: '10.0.0.1', family: 4 },
      ],
      'public.example': [
        { address: '2606:4700::1111', family: 6 },
        { address: '1.1.1.1', family: 4 },
      ],
    };
    const resolve = async (host: string) => names[host] ?? [];
    await expect(resolveTarget('https://mixed.example/x', false, resolve)).rejects.toThrow(AddressRefused);
    expect(await resolveTarget('https://mixed.example/x', true, resolve)).toMatchObject({
      address: '93.184.215.14',
    });
    expect(await resolveTarget('https://public.example:8443/x?y', false, resolve)).toMatchObject({
      hostname: 'public.example',
      address: '2606:4700::1111',
      family: 6,
    });
    await expect(resolveTarget('https://none.example/', false, resolve)).rejects.toThrow(/no address/);
    await expect(resolveTarget('http://[::ffff:127.0.0.1]/', false, resolve)).rejects.toThrow(
      /WEBHOOK_ALLOW_PRIVATE/,
    );
    await expect(resolveTarget('file:///etc/passwd', true, resolve)).rejects.toThrow(/http or https/);
  });
});
