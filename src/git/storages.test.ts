import { describe, expect, it } from 'vitest';
import { pickStorage } from './storages.js';

describe('pickStorage', () => {
  it('never picks a storage with weight 0', () => {
    for (let i = 0; i < 100; i++) expect(pickStorage({ old: 0, new: 100 }, i / 100)).toBe('new');
  });
  it('splits by weight', () => {
    const picks = Array.from({ length: 100 }, (_, i) => pickStorage({ a: 25, b: 75 }, i / 100));
    expect(picks.filter((p) => p === 'a')).toHaveLength(25);
  });
  it('refuses when every weight is 0', () => {
    expect(() => pickStorage({ a: 0 }, 0.5)).toThrow('No repository storage has a weight above 0');
  });
});
