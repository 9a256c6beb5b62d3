import type { Clock } from '../clock.js';
import type { RateCounter } from '../cluster/rate-counter.js';
import type { ApplicationSettings } from './application-settings.js';

/** GitLab's body of a throttled answer when `rate_limiting_response_text` is blank. */
export const DEFAULT_RATE_LIMITING_RESPONSE_TEXT = 'Retry later';

/** What a throttled request is answered: GitLab's Rack::Attack answer, a plain-text 429. */
export interface Throttled {
  /** The throttle's name (`RateLimit-Name`). */
  readonly name: 'throttle_authenticated_api' | 'throttle_unauthenticated_api';
  readonly retryAfterSeconds: number;
  /** The headers GitLab sends with it (`Retry-After` and its `RateLimit-*`). */
  readonly headers: Readonly<Record<string, string>>;
  /** The body: the instance's text, or `Retry later`, and a newline. */
  readonly text: string;
}

/** Who a request is counted against: a signed-in user, or the client address of an anonymous request. */
export type ApiCaller = { readonly userId: number } | { readonly address: string };

/**
 * The API's request throttles (GitLab's `throttle_authenticated_api` per user and `throttle_unauthenticated_api`
 * per client address), as the application settings configure them at the time of each request. Counted by the
 * cluster's rate counter: in the database with PostgreSQL, so every process counts together.
 */
export class ApiThrottle {
  constructor(
    private readonly settings: { get(): Promise<ApplicationSettings> },
    private readonly rates: RateCounter,
    private readonly clock: Clock,
  ) {}

  /** Counts one API request; null when it may go on, else what it is answered. */
  async hit(caller: ApiCaller): Promise<Throttled | null> {
    const s = await this.settings.get();
    const user = 'userId' in caller;
    const [enabled, limit, period] = user
      ? [
          s.throttle_authenticated_api_enabled,
          s.throttle_authenticated_api_requests_per_period,
          s.throttle_authenticated_api_period_in_seconds,
        ]
      : [
          s.throttle_unauthenticated_api_enabled,
          s.throttle_unauthenticated_api_requests_per_period,
          s.throttle_unauthenticated_api_period_in_seconds,
        ];
    if (!enabled) return null;
    // The period is part of the key: a changed period starts new windows rather than stretching open ones.
    const key = user ? `api:user:${caller.userId}:${period}` : `api:address:${caller.address}:${period}`;
    const wait = await this.rates.hit(key, 1, limit, period);
    if (wait === 0) return null;
    const reset = new Date(this.clock.now().getTime() + wait * 1000);
    const custom = s.rate_limiting_response_text;
    const text = `${custom && custom.trim() !== '' ? custom : DEFAULT_RATE_LIMITING_RESPONSE_TEXT}\n`;
    return {
      name: user ? 'throttle_authenticated_api' : 'throttle_unauthenticated_api',
      retryAfterSeconds: wait,
      headers: {
        'Retry-After': String(wait),
        'RateLimit-Name': user ? 'throttle_authenticated_api' : 'throttle_unauthenticated_api',
        // GitLab states the quota per minute, rounded up, whatever the period.
        'RateLimit-Limit': String(Math.ceil((limit * 60) / period)),
        'RateLimit-Remaining': '0',
        'RateLimit-Reset': String(Math.floor(reset.getTime() / 1000)),
        'RateLimit-ResetTime': reset.toUTCString(),
      },
      text,
    };
  }
}
