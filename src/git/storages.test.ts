import { describe, expect, it } from 'vitest';
import { NoWeightedStorage, pickStorage, WeightedStorages } from './storages.js';

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

describe('WeightedStorages', () => {
  const picker = (weights: Record<string, number>, random: number) =>
    new WeightedStorages(
      async () => weights,
      () => random,
    );

  it('picks by the current weights', async () => {
    expect(await picker({ a: 25, b: 75 }, 0.1).pick()).toBe('a');
    expect(await picker({ a: 25, b: 75 }, 0.3).pick()).toBe('b');
  });

  it('never picks the storage left out (a move never lands on its source)', async () => {
    for (const r of [0, 0.5, 0.99]) expect(await picker({ a: 100, b: 1 }, r).pick('a')).toBe('b');
  });

  it('throws NoWeightedStorage when nothing but the left-out storage has weight', async () => {
    await expect(picker({ a: 100, b: 0 }, 0.5).pick('a')).rejects.toBeInstanceOf(NoWeightedStorage);
  });
});
