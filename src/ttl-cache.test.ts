import { describe, expect, it } from 'vitest';
import { TtlCache } from './ttl-cache.js';

function setup(ttlMs = 1000, maxEntries = 3) {
  let now = 0;
  const clock = { now: () => new Date(now) };
  const loads: string[] = [];
  const cache = new TtlCache<string, string>(clock, ttlMs, maxEntries);
  const get = (key: string, fail = false) =>
    cache.get(key, async () => {
      loads.push(key);
      if (fail) throw new Error(`no ${key}`);
      return `${key}@${now}`;
    });
  return { cache, get, loads, advance: (ms: number) => (now += ms) };
}

describe('TtlCache', () => {
  it('reuses a value for ttlMs after its lookup started, then looks it up again', async () => {
    const { get, loads, advance } = setup();
    expect(await get('a')).toBe('a@0');
    advance(1000);
    expect(await get('a')).toBe('a@0');
    advance(1);
    expect(await get('a')).toBe('a@1001');
    expect(loads).toEqual(['a', 'a']);
  });

  it('shares one lookup between concurrent callers', async () => {
    const { get, loads } = setup();
    const [x, y] = await Promise.all([get('a'), get('a')]);
    expect(x).toBe(y);
    expect(loads).toEqual(['a']);
  });

  it('drops a failed lookup so the next call tries again', async () => {
    const { get, loads } = setup();
    await expect(get('a', true)).rejects.toThrow('no a');
    expect(await get('a')).toBe('a@0');
    expect(loads).toEqual(['a', 'a']);
  });

  it('forgets everything on clear()', async () => {
    const { cache, get, loads } = setup();
    await get('a');
    cache.clear();
    await get('a');
    expect(loads).toEqual(['a', 'a']);
  });

  it('starts over when maxEntries keys are held, so distinct keys cannot grow it without bound', async () => {
    const { get, loads } = setup(1000, 2);
    await get('a');
    await get('b');
    await get('a');
    expect(loads).toEqual(['a', 'b']);
    await get('c'); // full: a and b are forgotten
    await get('a');
    expect(loads).toEqual(['a', 'b', 'c', 'a']);
  });
});
