import { type Kysely, type SelectQueryBuilder, sql } from 'kysely';
import { COUNT_LIMIT, type PageRequest } from '../pagination.js';
import { readCount } from './dialect.js';

/**
 * One page of a filtered query and the filter's total: `rows` adds the selection and order to `base`,
 * and the page's limit and offset are applied here.
 *
 * With `db`, the total is a capped count (GitLab's, for large tables): it stops after COUNT_LIMIT + 1 rows, or after
 * the row just past this page when that is further, so `total` is exact up to COUNT_LIMIT (the only totals the API
 * shows) and says whether a next page exists beyond it, without reading every matching row of a million.
 */
export async function fetchPage<DB, TB extends keyof DB, O>(
  base: SelectQueryBuilder<DB, TB, object>,
  rows: (q: SelectQueryBuilder<DB, TB, object>) => SelectQueryBuilder<DB, TB, O>,
  page: PageRequest,
  db?: Kysely<DB>,
): Promise<{ rows: O[]; total: number }> {
  const cap = Math.max(COUNT_LIMIT + 1, page.page * page.perPage + 1);
  const count = db
    ? (db as unknown as Kysely<Record<string, never>>)
        .selectFrom(base.select(sql.lit(1).as('one')).limit(cap).as('capped'))
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirst()
    : base.select((eb) => eb.fn.countAll().as('n')).executeTakeFirst();
  const [items, total] = await Promise.all([
    rows(base)
      .limit(page.perPage)
      .offset((page.page - 1) * page.perPage)
      .execute(),
    count,
  ]);
  return { rows: items, total: readCount((total as { n?: string | number } | undefined)?.n) };
}
