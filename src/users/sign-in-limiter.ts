import type { RateCounter } from '../cluster/rate-counter.js';
import { normaliseAddress } from '../ip-allowlist.js';

/** Most client addresses tracked at once; past it the oldest entries are dropped (memory stays bounded). */
const MAX_TRACKED = 10_000;

/**
 * Counts failed password sign-ins per client address (web sign-in and git Basic auth): after `max` failures in a
 * window of `windowMs`, further password attempts from that address are refused until the window ends (GitLab's
 * Rack::Attack limits for protected paths and git Basic auth). IPv6 clients are counted per /64, as one host
 * usually holds a whole /64; IPv4-mapped addresses count as their IPv4 address.
 */
export class SignInLimiter {
  private readonly windows = new Map<string, { failures: number; endsAt: number }>();

  constructor(
    private readonly max: number,
    private readonly windowMs: number,
    private readonly now: () => number,
    private readonly capacity = MAX_TRACKED,
  ) {}

  /** The counting key of an address: IPv4 as is, IPv6 by /64; unknown addresses share one key. */
  static keyOf(address: string | undefined): string {
    const n = address ? normaliseAddress(address) : null;
    if (!n) return 'unknown';
    return n.family === 4 ? `4:${n.value}` : `6:${n.value >> 64n}`;
  }

  /** Seconds until this address may try again, or 0 when it may try now. */
  retryAfter(address: string | undefined): number {
    const key = SignInLimiter.keyOf(address);
    const w = this.windows.get(key);
    if (!w) return 0;
    const now = this.now();
    if (w.endsAt <= now) {
      this.windows.delete(key);
      return 0;
    }
    return w.failures >= this.max ? Math.max(1, Math.ceil((w.endsAt - now) / 1000)) : 0;
  }

  /** Records one failed attempt from this address. */
  fail(address: string | undefined): void {
    const key = SignInLimiter.keyOf(address);
    const now = this.now();
    const w = this.windows.get(key);
    if (w && w.endsAt > now) {
      w.failures += 1;
      return;
    }
    this.windows.delete(key);
    if (this.windows.size >= this.capacity) this.evict(now);
    this.windows.set(key, { failures: 1, endsAt: now + this.windowMs });
  }

  /** Addresses tracked now (for tests of the bound). */
  get size(): number {
    return this.windows.size;
  }

  private evict(now: number): void {
    for (const [key, w] of this.windows) if (w.endsAt <= now) this.windows.delete(key);
    // Still full: drop the oldest windows (Map keeps insertion order).
    for (const key of this.windows.keys()) {
      if (this.windows.size < this.capacity) break;
      this.windows.delete(key);
    }
  }
}

/** The per-address guard as UsersService uses it: in memory (`SignInLimiter`) or shared (`SharedSignInLimiter`). */
export interface AddressLimiter {
  retryAfter(address: string | undefined): number | Promise<number>;
  fail(address: string | undefined): void | Promise<void>;
}

/**
 * The same guard counted in the database (several processes: a client's failures count on whichever process they
 * reach). Windows are fixed windows of the counter, which holds nothing in memory.
 */
export class SharedSignInLimiter implements AddressLimiter {
  constructor(
    private readonly rates: RateCounter,
    private readonly max: number,
    private readonly windowMs: number,
  ) {}

  retryAfter(address: string | undefined): Promise<number> {
    return this.rates.check(`sign-in:${SignInLimiter.keyOf(address)}`, this.max);
  }

  async fail(address: string | undefined): Promise<void> {
    await this.rates.hit(
      `sign-in:${SignInLimiter.keyOf(address)}`,
      1,
      this.max,
      Math.max(1, Math.round(this.windowMs / 1000)),
    );
  }
}
