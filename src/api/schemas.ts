import { Type } from 'typebox';
import { STATS_PERIODS } from '../time-buckets.js';

/** Input schemas shared by several routes (the same in every API version). */
export const VisibilityInput = Type.Union([
  Type.Literal('private'),
  Type.Literal('internal'),
  Type.Literal('public'),
]);
export const SortInput = Type.Union([Type.Literal('asc'), Type.Literal('desc')]);

/** `stats_period` of the occurrence charts (Sentry's `statsPeriod`): hourly over 24 hours or daily over 30 days. */
export const StatsQuery = Type.Object({
  stats_period: Type.Optional(Type.Union(STATS_PERIODS.map((p) => Type.Literal(p)))),
});
