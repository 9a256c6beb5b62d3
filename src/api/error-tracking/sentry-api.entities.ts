import { Type } from 'typebox';
import { Int, Nullable, Str } from '../common/common.entities.js';

/** Sentry's release commit as `/api/0/` answers it (sentry-cli reads `id`). */
export const SentryCommitEntity = Type.Object({
  id: Str,
  message: Nullable(Str),
  dateCreated: Nullable(Str),
  repository: Str,
  author: Nullable(Type.Object({ name: Nullable(Str), email: Nullable(Str) })),
});

/** Sentry's release (`/api/0/.../releases/:version/`), in the camel case Sentry and sentry-cli use. */
export const SentryReleaseEntity = Type.Object({
  version: Str,
  shortVersion: Str,
  ref: Type.Null(),
  url: Nullable(Str),
  status: Str,
  dateCreated: Str,
  dateStarted: Type.Null(),
  dateReleased: Nullable(Str),
  firstEvent: Nullable(Str),
  lastEvent: Nullable(Str),
  newGroups: Int,
  commitCount: Int,
  lastCommit: Nullable(SentryCommitEntity),
  authors: Type.Array(Type.Unknown()),
  deployCount: Int,
  lastDeploy: Type.Null(),
  data: Type.Record(Str, Type.Unknown()),
  owner: Type.Null(),
  projects: Type.Array(
    Type.Object({
      id: Int,
      slug: Str,
      name: Str,
      newGroups: Type.Null(),
      platform: Type.Null(),
      platforms: Type.Array(Str),
      hasHealthData: Type.Boolean(),
    }),
  ),
});
