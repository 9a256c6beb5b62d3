import { describe, expect, it } from 'vitest';
import { FixedWindowThrottle, THROTTLE_MAX_ENTRIES } from './throttle.js';

describe('FixedWindowThrottle', () => {
  it('allows `limit` notifications per window, then answers the seconds left; a new window starts afresh', () => {
    const t = new FixedWindowThrottle();
    expect([1, 2, 3].map(() => t.hit(7, 2, 60, 1_000))).toEqual([0, 0, 60]);
    expect(t.hit(7, 2, 60, 31_000)).toBe(30);
    expect(t.hit(8, 2, 60, 31_000)).toBe(0);
    expect(t.hit(7, 2, 60, 61_000)).toBe(0);
  });

  it('stays at its cap after many more distinct keys than it holds, counting the newest ones', () => {
    const t = new FixedWindowThrottle(1_000);
    for (let key = 0; key < 50_000; key++) t.hit(key, 1, 3600, 1_000 + key);
    expect(t.size).toBeLessThanOrEqual(1_000);
    expect(t.size).toBeGreaterThanOrEqual(900);
    // The newest windows are kept: a second hit in the same window is refused.
    expect(t.hit(49_999, 1, 3600, 60_000)).toBeGreaterThan(0);
  });

  it('drops ended windows instead of keeping them', () => {
    const t = new FixedWindowThrottle();
    for (let key = 0; key < 500; key++) t.hit(key, 10, 60, 0);
    expect(t.size).toBe(500);
    t.hit(1_000, 10, 60, 60_000);
    expect(t.size).toBe(1);
  });

  it('holds at most THROTTLE_MAX_ENTRIES windows by default', () => {
    const t = new FixedWindowThrottle();
    for (let key = 0; key < THROTTLE_MAX_ENTRIES * 3; key++) t.hit(key, 1, 3600, 0);
    expect(t.size).toBeLessThanOrEqual(THROTTLE_MAX_ENTRIES);
  });
});
