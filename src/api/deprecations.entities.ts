import { Type } from 'typebox';

/** One entry of the deprecation catalog, with whether its removal is in force here (`GET /deprecations/:id`). */
export const DeprecationEntity = Type.Object({
  id: Type.String(),
  title: Type.String(),
  area: Type.String(),
  /** Release the deprecation was announced in, or null when the spec gives none. */
  announced: Type.Union([Type.String(), Type.Null()]),
  /** Release of removal (`17.0`), `v5` for REST API v4-to-v5 changes, or null when none is scheduled. */
  removal: Type.Union([Type.String(), Type.Null()]),
  breaking: Type.Boolean(),
  change: Type.String(),
  replacement: Type.Union([Type.String(), Type.Null()]),
  /** Whether svc itself changes behaviour at the removal (rather than listing it for information). */
  enforced: Type.Boolean(),
  /** The spec table the entry comes from (`v4-to-v5`, `removals-18.0`, ...). */
  source: Type.String(),
  /** Whether the removal is in force at the instance's release. */
  applies: Type.Boolean(),
});

/** The catalog and the instance's release (`GET /deprecations`). */
export const DeprecationCatalogEntity = Type.Object({
  instance_release: Type.String(),
  deprecations: Type.Array(DeprecationEntity),
});
