import type { Kysely } from 'kysely';
import type { InstancePolicy } from '../access/access.policy.js';
import type { AvatarStore } from '../avatars/avatar-store.js';
import type { Clock } from '../clock.js';
import type { RateCounter } from '../cluster/rate-counter.js';
import type { Config } from '../config.js';
import type { Database } from '../db/schema.js';
import { SharedSignInLimiter } from './sign-in-limiter.js';
import type { User } from './users.js';
import { UsersRepository } from './users.repository.js';
import { type SignInLimits, type UserNamespaces, type UserSettings, UsersService } from './users.service.js';

/** Users, their sessions and tokens, and the sign-in limits. */
export function wireUsers(deps: {
  kysely: Kysely<Database>;
  /** The parts of namespaces and settings that UsersService uses, as it declares them (settings imports users). */
  namespaces: UserNamespaces;
  settings: UserSettings;
  access: InstancePolicy<User>;
  avatars: AvatarStore;
  clock: Clock;
  /** GitLab's limits on password guessing, from the configuration. */
  limits: Pick<
    Config,
    'maxLoginAttempts' | 'loginLockMinutes' | 'loginFailuresPerIp' | 'loginFailureWindowSeconds'
  >;
  /** Failures per address counted in the database (several processes), or `null`: in this process's memory. */
  sharedRates: RateCounter | null;
}): { users: UsersService } {
  const { limits } = deps;
  const signIn: SignInLimits = {
    maxAttempts: limits.maxLoginAttempts,
    lockMs: limits.loginLockMinutes * 60_000,
    failuresPerAddress: limits.loginFailuresPerIp,
    windowMs: limits.loginFailureWindowSeconds * 1000,
  };
  return {
    users: new UsersService(
      new UsersRepository(deps.kysely),
      deps.namespaces,
      deps.settings,
      deps.access,
      deps.avatars,
      deps.clock,
      signIn,
      deps.sharedRates
        ? new SharedSignInLimiter(deps.sharedRates, signIn.failuresPerAddress, signIn.windowMs)
        : undefined,
    ),
  };
}
