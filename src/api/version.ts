import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyRequest,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import { type DeprecationId, findDeprecation } from '../versioning/catalog.js';
import * as v4Entities from './v4/entities.js';
import type { View } from './v4/presenters.js';
import * as v4Presenters from './v4/presenters.js';
import * as v5Entities from './v5/entities.js';
import * as v5Presenters from './v5/presenters.js';

/** One REST API version: its presenters and response schemas. Routes are registered once per version. */
export interface ApiVersion {
  readonly version: 4 | 5;
  readonly present: typeof v4Presenters;
  readonly entities: Entities;
  /** Whether this version removed a catalog entry (v5 removes the v4-to-v5 table's items). */
  removes(id: DeprecationId): boolean;
}

/** The schemas every version provides; input schemas may differ between versions. */
export type Entities = Omit<typeof v4Entities, 'PrivateProfileInput'> & {
  readonly PrivateProfileInput: typeof v4Entities.PrivateProfileInput | typeof v5Entities.PrivateProfileInput;
};

export const API_VERSIONS: readonly ApiVersion[] = [
  { version: 4, present: v4Presenters, entities: v4Entities, removes: () => false },
  {
    version: 5,
    present: v5Presenters,
    entities: v5Entities,
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
