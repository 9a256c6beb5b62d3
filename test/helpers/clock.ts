import type { Clock } from '../../src/clock.js';

/**
 * The server's clock in tests: the real time plus an offset the test moves forward, so that time passes (a lock
 * runs out, a token expires, a backoff ends) without editing rows or sleeping.
 */
export class TestClock implements Clock {
  private offsetMs = 0;

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  /** Moves the clock forward by `ms`. */
  advance(ms: number): void {
    if (ms < 0) throw new Error('a test clock only moves forward');
    this.offsetMs += ms;
  }
}
