import type { MembersService } from '../members/members.service.js';
import type { Access } from '../projects/access.js';
import type { UsersService } from '../users/users.service.js';
import { AccessTokensService } from './access-tokens.service.js';

/** Project and group access tokens (bot users with a membership and a token). */
export function wireAccessTokens(deps: {
  users: UsersService;
  members: MembersService;
  access: Access;
  /** The instance's external URL: bot users' e-mail addresses are at `noreply.<its host>`. */
  externalUrl: string;
}): { accessTokens: AccessTokensService } {
  return {
    accessTokens: new AccessTokensService(
      deps.users,
      deps.members,
      deps.access,
      new URL(deps.externalUrl).hostname,
    ),
  };
}
