import { Type } from 'typebox';

/** v5 response and input schemas: v4's, except where the spec's v4-to-v5 table changes them. */
export * from '../v4/entities.js';

/** Spec (v4 to v5): `private_profile` null is no longer valid on create and update; only true and false. */
export const PrivateProfileInput = Type.Boolean();
