import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SignInLimiter } from './sign-in-limiter.js';

describe('SignInLimiter', () => {
  it('refuses an address after max failures until its window ends', () => {
    let now = 0;
    const l = new SignInLimiter(3, 60_000, () => now);
    for (let i = 0; i < 3; i++) {
      expect(l.retryAfter('10.0.0.1')).toBe(0);
      l.fail('10.0.0.1');
    }
    expect(l.retryAfter('10.0.0.1')).toBe(60);
    // IPv4-mapped spelling and the same IPv6 /64 count as one client.
    expect(l.retryAfter('::ffff:10.0.0.1')).toBe(60);
    expect(l.retryAfter('10.0.0.2')).toBe(0);
    for (let i = 0; i < 3; i++) l.fail(`2001:db8::${i + 1}`);
    expect(l.retryAfter('2001:db8::ffff')).toBeGreaterThan(0);
    expect(l.retryAfter('2001:db8:0:1::1')).toBe(0);
    now = 60_000;
    expect(l.retryAfter('10.0.0.1')).toBe(0);
  });

  it('keeps memory bounded whatever addresses fail (property)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.ipV4(), fc.ipV6(), fc.string({ maxLength: 10 })), { maxLength: 300 }),
        (addresses) => {
          let now = 0;
          const l = new SignInLimiter(5, 1000, () => now, 50);
          for (const a of addresses) {
            now += 7;
            l.fail(a);
            expect(l.size).toBeLessThanOrEqual(50);
            expect(() => l.retryAfter(a)).not.toThrow();
          }
        },
      ),
      { numRuns: 100 },
    );
  });
});
