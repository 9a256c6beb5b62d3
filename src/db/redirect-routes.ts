import { sql } from 'kysely';
import { like, prefixPattern } from './like.js';
import type { Queryable } from './schema.js';

/**
 * GitLab's `redirect_routes`, shared by the features whose paths move (projects, groups): what an old full path
 * names, the redirects a move records and the ones a path taken again removes. Every call runs in the caller's
 * transaction with the move itself.
 */
export type RedirectSource = 'Project' | 'Namespace';

/** The source an old path redirects to, if any (case-insensitive, as paths are). */
export async function redirectOf(q: Queryable, type: RedirectSource, path: string): Promise<number | null> {
  const row = await q
    .selectFrom('redirect_routes')
    .select('source_id')
    .where('source_type', '=', type)
    .where(sql`lower(path)`, '=', path.toLowerCase())
    .executeTakeFirst();
  return row?.source_id ?? null;
}

/**
 * A path taken by a project or group (created there or moved there): the redirects of that path and of every path
 * below it end, as GitLab's `delete_conflicting_redirects` does.
 */
export async function claimRedirectPaths(q: Queryable, paths: readonly string[]): Promise<void> {
  if (paths.length === 0) return;
  await q
    .deleteFrom('redirect_routes')
    .where((eb) =>
      eb.or(
        paths.flatMap((p) => [
          eb(sql`lower(path)`, '=', p.toLowerCase()),
          like(sql`lower(path)`, prefixPattern(`${p.toLowerCase()}/`)),
        ]),
      ),
    )
    .execute();
}

/** Records old paths of moved sources (one redirect per path: a path already redirected points at its latest source). */
export async function addRedirects(
  q: Queryable,
  rows: readonly { type: RedirectSource; id: number; path: string }[],
  now: string,
): Promise<void> {
  // In chunks: a large tree's rows stay far below both databases' limits on a statement's parameters.
  for (let i = 0; i < rows.length; i += 500) {
    const chunk = rows.slice(i, i + 500);
    await q
      .deleteFrom('redirect_routes')
      .where(
        sql`lower(path)`,
        'in',
        chunk.map((r) => r.path.toLowerCase()),
      )
      .execute();
    await q
      .insertInto('redirect_routes')
      .values(chunk.map((r) => ({ source_type: r.type, source_id: r.id, path: r.path, created_at: now })))
      .execute();
  }
}

/** Removes the redirects of deleted sources. */
export async function deleteRedirectsOf(
  q: Queryable,
  type: RedirectSource,
  ids: readonly number[],
): Promise<void> {
  if (ids.length === 0) return;
  await q
    .deleteFrom('redirect_routes')
    .where('source_type', '=', type)
    .where('source_id', 'in', ids)
    .execute();
}
