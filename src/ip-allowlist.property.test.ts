import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addressAllowed, CidrError, normaliseAddress, parseCidrList } from './ip-allowlist.js';

describe('parseCidrList and addressAllowed', () => {
  it('matches loopback in every spelling against the default list', () => {
    const list = parseCidrList('127.0.0.0/8,::1/128');
    for (const a of [
      '127.0.0.1',
      '127.255.0.9',
      '::1',
      '::ffff:127.0.0.1',
      '::FFFF:7f00:1',
      '0:0:0:0:0:ffff:127.0.0.2',
    ]) {
      expect(addressAllowed(a, list)).toBe(true);
    }
    for (const a of [
      '10.0.0.1',
      '::2',
      '::ffff:10.0.0.1',
      '128.0.0.1',
      'fe80::1%eth0',
      '',
      'localhost',
      undefined,
    ]) {
      expect(addressAllowed(a, list)).toBe(false);
    }
    expect(normaliseAddress('::ffff:10.1.2.3')).toEqual({ family: 4, value: 0x0a010203n });
  });

  it('matches mapped blocks and prefixes', () => {
    expect(addressAllowed('10.9.8.7', parseCidrList('::ffff:10.0.0.0/104'))).toBe(true);
    expect(addressAllowed('2001:db8::5', parseCidrList('2001:db8::/32'))).toBe(true);
    expect(addressAllowed('2001:db9::5', parseCidrList('2001:db8::/32'))).toBe(false);
    expect(addressAllowed('192.168.1.1', parseCidrList('0.0.0.0/0'))).toBe(true);
  });

  it('throws only CidrError on any input (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (text) => {
        try {
          const blocks = parseCidrList(text);
          for (const b of blocks) expect(b.prefix).toBeLessThanOrEqual(b.family === 4 ? 32 : 128);
        } catch (err) {
          expect(err).toBeInstanceOf(CidrError);
        }
        expect(() => addressAllowed(text, [])).not.toThrow();
      }),
      { numRuns: 1000 },
    );
  });

  it('an address is inside its own /32 or /128 block and any block built from it (property)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.ipV4(), fc.ipV6()), fc.integer({ min: 0, max: 128 }), (ip, p) => {
        const n = normaliseAddress(ip)!;
        expect(n).not.toBeNull();
        expect(addressAllowed(ip, parseCidrList(ip))).toBe(true);
        const max = n.family === 4 ? 32 : 128;
        const bare = n.family === 4 && ip.includes(':') ? ip.replace(/^.*:/, '') : ip;
        expect(addressAllowed(ip, parseCidrList(`${bare}/${Math.min(p, max)}`))).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});
