import { type TSchema, Type } from '@sinclair/typebox';

/** Building blocks of the v4 entities' schemas. */
export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

export const Str = Type.String();

export const Int = Type.Integer();

export const Bool = Type.Boolean();

/** `{"message": "202 Accepted"}` and the like. */
export const MessageEntity = Type.Object({ message: Str });
