import { Type } from 'typebox';

export * from './users.entities.js';

/** Spec (v4 to v5): `private_profile` null is no longer valid on create and update; only true and false. */
export const PrivateProfileInput = Type.Boolean();
