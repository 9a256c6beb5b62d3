import type { Clock } from '../../src/clock.js';

/**
 * The server's clock in tests: the real time plus an offset the test moves forward, so that time passes (a lock
 * runs out, a token expires, a backoff ends) without editing rows or sleeping. With `frozenAt`, it stands still
 * there until moved (for exact deadlines).
 */
export class TestClock implements Clock {
  private offsetMs = 0;

  constructor(private readonly frozenAt: Date | null = null) {}

  now(): Date {
    return new Date((this.frozenAt?.getTime() ?? Date.now()) + this.offsetMs);
  }

  /** Moves the clock forward by `ms`. */
  advance(ms: number): void {
    if (ms < 0) throw new Error('a test clock only moves forward');
    this.offsetMs += ms;
  }
}
