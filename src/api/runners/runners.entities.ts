import { Type } from 'typebox';
import { Bool, Int, Literals, Nullable, Str } from '../common/common.entities.js';

/** v4's runner status values: the contact status, or `paused` for a paused runner (deprecated; spec). */
const RUNNER_STATUSES = ['online', 'offline', 'not_connected', 'paused'] as const;

/** v4 Runner: `active` beside `paused`, and `ip_address` ("" from release 17.0, spec) are always sent. */
export const RunnerEntity = Type.Object({
  id: Int,
  description: Nullable(Str),
  ip_address: Nullable(Str),
  active: Bool,
  paused: Bool,
  is_shared: Bool,
  runner_type: Str,
  name: Nullable(Str),
  online: Bool,
  status: Literals(RUNNER_STATUSES),
  created_at: Str,
});

export const RunnerDetailsEntity = Type.Object({
  ...RunnerEntity.properties,
  tag_list: Type.Array(Str),
  run_untagged: Bool,
  locked: Bool,
  maximum_timeout: Nullable(Int),
  access_level: Str,
  version: Nullable(Str),
  revision: Nullable(Str),
  platform: Nullable(Str),
  architecture: Nullable(Str),
  contacted_at: Nullable(Str),
  maintenance_note: Nullable(Str),
  projects: Type.Array(
    Type.Object({ id: Int, name: Str, name_with_namespace: Str, path: Str, path_with_namespace: Str }),
  ),
  groups: Type.Array(Type.Object({ id: Int, name: Str, web_url: Str })),
});

/** Runner settings taken on creation and update (the same in v4 and v5). */
export const RunnerSettingsInput = Type.Object({
  description: Type.Optional(Nullable(Str)),
  paused: Type.Optional(Bool),
  locked: Type.Optional(Bool),
  run_untagged: Type.Optional(Bool),
  tag_list: Type.Optional(Type.Union([Type.Array(Str), Str])),
  access_level: Type.Optional(Literals(['not_protected', 'ref_protected'])),
  maximum_timeout: Type.Optional(Nullable(Int)),
  maintenance_note: Type.Optional(Nullable(Str)),
});

/** `PUT /runners/:id`: v4 still takes the deprecated `active` (spec: replaced by paused). */
export const RunnerUpdateInput = Type.Object({
  active: Type.Optional(Bool),
  ...RunnerSettingsInput.properties,
});

/** `POST /runners`: legacy registration with a registration token (v4 still takes the deprecated `active`). */
export const RunnerRegistrationInput = Type.Object({
  token: Str,
  info: Type.Optional(Type.Object({ name: Type.Optional(Str) })),
  active: Type.Optional(Bool),
  maintainer_note: Type.Optional(Str),
  ...RunnerSettingsInput.properties,
});

/** The `status` filter of the runner lists: v4 also takes the deprecated `active` and `paused` (spec). */
export const RunnerStatusInput = Literals(['active', 'paused', 'online', 'offline', 'not_connected']);
