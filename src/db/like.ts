import { type Expression, type RawBuilder, type SqlBool, sql } from 'kysely';

/**
 * LIKE with user text in it. The text's own `%`, `_` and `\` match themselves: `\` escapes them, and every
 * comparison names it with `ESCAPE '\'` (SQLite has no default escape character; PostgreSQL's default is `\`, so
 * a PostgreSQL `ILIKE` without the clause, as the trigram-indexed alert search writes it, reads the same pattern).
 * Without the escape, `search=a%` or `_` matched any character: a search became a probe of hidden columns.
 */
function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, '\\$&');
}

/** `%text%`: contains `text`. */
export function containsPattern(text: string): string {
  return `%${escapeLike(text)}%`;
}

/** `text%`: starts with `text` (a path prefix such as `group/`). */
export function prefixPattern(text: string): string {
  return `${escapeLike(text)}%`;
}

/** `expr LIKE pattern ESCAPE '\'`, with a pattern from `containsPattern` or `prefixPattern`. */
export function like(expr: Expression<unknown> | RawBuilder<unknown>, pattern: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`${expr} LIKE ${pattern} ESCAPE '\\'`;
}

/** Lower-cased `column` contains lower-cased `text`, literally (the searches of the API). */
export function containsText(
  column: Expression<unknown> | RawBuilder<unknown>,
  text: string,
): RawBuilder<SqlBool> {
  return like(sql`lower(${column})`, containsPattern(text.toLowerCase()));
}
