import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyRequest,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { Static, TUnsafe } from 'typebox';
import { type DeprecationId, findDeprecation } from '../versioning/catalog.js';
import * as v4Entities from './v4/entities.js';
import type { View } from './v4/presenters.js';
import * as v4Presenters from './v4/presenters.js';
import * as v5Entities from './v5/entities.js';
import * as v5Presenters from './v5/presenters.js';

/**
 * One REST API version: its presenters and its response and input schemas (both versions name the same ones;
 * v5's omit what the spec removes). Routes are registered once per version.
 */
export interface ApiVersion {
  readonly version: 4 | 5;
  readonly present: typeof v4Presenters | typeof v5Presenters;
  readonly entities: Entities;
  /** Whether this version removed a catalog entry (v5 removes the v4-to-v5 table's items). */
  removes(id: DeprecationId): boolean;
}

type V4 = typeof v4Entities;
type V5 = typeof v5Entities;
/**
 * How routes see a schema the two versions define differently. A response schema is typed as one schema with
 * either version's shape (the type provider would intersect a union of two response schemas); an input schema
 * as either schema (request types are decoded from the schema's kind, which a plain shape does not have).
 */
type Either<K extends keyof V4 & keyof V5> = K extends `${string}Input`
  ? V4[K] | V5[K]
  : TUnsafe<Static<V4[K]> | Static<V5[K]>>;
/** The schemas routes see: each version's where both are the same, else `Either`; at run time, the version's own. */
export type Entities = {
  readonly [K in keyof V4 & keyof V5]: [V4[K]] extends [V5[K]]
    ? [V5[K]] extends [V4[K]]
      ? V4[K]
      : Either<K>
    : Either<K>;
};

// TypeBox 1.x marks an Unsafe schema with a type-only `~unsafe` member that real schema objects lack: each version's
// own schemas are what `Entities` describes (checked by src/api/contract.test.ts), so they are cast to it here.
export const API_VERSIONS: readonly ApiVersion[] = [
  { version: 4, present: v4Presenters, entities: v4Entities as unknown as Entities, removes: () => false },
  {
    version: 5,
    present: v5Presenters,
    entities: v5Entities as unknown as Entities,
    removes: (id) => findDeprecation(id).removal === 'v5',
  },
];

/** The Fastify instance type routes are registered on (TypeBox type provider). */
export type ApiApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

/** The presenter view for a request. */
export function viewOf(request: FastifyRequest, externalUrl: string): View {
  return { externalUrl, viewer: request.actor.user };
}
