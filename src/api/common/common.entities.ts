import { type TLiteral, type TSchema, type TUnion, Type } from 'typebox';

/** Building blocks of the v4 entities' schemas. */
export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

/** One of the given strings (typed as the union of their literals, which `Type.Union` of a mapped array is not). */
export const Literals = <const T extends readonly string[]>(values: T) =>
  Type.Union(values.map((v) => Type.Literal(v))) as unknown as TUnion<{
    -readonly [K in keyof T]: TLiteral<T[K]>;
  }>;

export const Str = Type.String();

export const Int = Type.Integer();

export const Bool = Type.Boolean();

/** `{"message": "202 Accepted"}` and the like. */
export const MessageEntity = Type.Object({ message: Str });
