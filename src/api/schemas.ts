import { Type } from 'typebox';

/** Input schemas shared by several routes (the same in every API version). */
export const VisibilityInput = Type.Union([
  Type.Literal('private'),
  Type.Literal('internal'),
  Type.Literal('public'),
]);
export const SortInput = Type.Union([Type.Literal('asc'), Type.Literal('desc')]);
